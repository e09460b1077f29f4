"""Step 0 of the data flow: what a user hands in, checked and put in the
forms the later steps read (a LazyFrame, hierarchies by column, validated
parameters, nulls as a value or an error, a frequency set of counts)."""
