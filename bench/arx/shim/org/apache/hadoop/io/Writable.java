// Only so that ARX's sources compile where its lib/ holds no hadoop-core jar:
// ARX's logistic regression names this interface through Mahout; nothing on
// the grid's path (k-anonymity, the loss metric) loads it.
package org.apache.hadoop.io;

public interface Writable {
    void write(java.io.DataOutput out) throws java.io.IOException;

    void readFields(java.io.DataInput in) throws java.io.IOException;
}
