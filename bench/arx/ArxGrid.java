// ARX's time to its optimum on the grid of bench/answer.py (Adult with its
// first 5, 7 and 9 columns as quasi-identifiers, and cup with its 7; k = 2,
// 5, 10; suppression 0, 1, 5 and 10%), so that the ratios in answer.json
// compare two programs run on one machine on one day.
//
// Usage (bench/arx.py builds ARX and runs this):
//   java -cp <arx classes and jars>:<this> ArxGrid DATA_DIR REPEAT OUT.json
//
// Each cell times ARXAnonymizer.anonymize() alone (ARX encodes the table
// inside it, as pa.search builds F0 inside its call), REPEAT times after one
// untimed call, in one JVM; the table is held as rows of text and given to
// ARX afresh for every call (a Data object is locked by an anonymization).
// ARX's configuration is its default but for k and the suppression limit:
// the loss metric (geometric mean, gs-factor 0.5), its optimal algorithm.
// Columns not named as quasi-identifiers are declared insensitive.

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.metric.Metric;

public class ArxGrid {

    static final int[] KS = {2, 5, 10};
    static final double[] SUPPRESSION = {0.0, 0.01, 0.05, 0.1};
    static final String[] ADULT = {
        "sex", "age", "race", "marital-status", "education",
        "native-country", "workclass", "occupation", "salary-class"};
    static final String[] CUP = {"AGE", "GENDER", "INCOME", "MINRAMNT", "NGIFTALL", "STATE", "ZIP"};

    /** A CSV of ';'-separated fields without quotes, as the shared data is. */
    static List<String[]> rows(Path path) throws IOException {
        List<String[]> out = new ArrayList<>();
        for (String line : Files.readAllLines(path, StandardCharsets.UTF_8)) {
            if (!line.isEmpty()) {
                out.add(line.split(";", -1));
            }
        }
        return out;
    }

    static final class Table {
        final String name;
        final List<String[]> rows;
        final String[] qis;
        final String[][][] hierarchies;

        Table(String name, Path dir, String csv, String[] qis) throws IOException {
            this.name = name;
            this.rows = rows(dir.resolve(csv));
            this.qis = qis;
            this.hierarchies = new String[qis.length][][];
            for (int i = 0; i < qis.length; i++) {
                List<String[]> h = rows(dir.resolve("hierarchy_" + qis[i] + ".csv"));
                this.hierarchies[i] = h.toArray(new String[0][]);
            }
        }

        Data data() {
            Data data = Data.create(rows);
            String[] header = rows.get(0);
            List<String> qi = Arrays.asList(qis);
            for (String column : header) {
                if (!qi.contains(column)) {
                    data.getDefinition().setAttributeType(column, AttributeType.INSENSITIVE_ATTRIBUTE);
                }
            }
            for (int i = 0; i < qis.length; i++) {
                data.getDefinition().setAttributeType(qis[i], Hierarchy.create(hierarchies[i]));
            }
            return data;
        }
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static ARXConfiguration config(int k, double sup) {
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        config.setSuppressionLimit(sup);
        config.setQualityModel(Metric.createLossMetric());
        return config;
    }

    public static void main(String[] args) throws Exception {
        Path dir = Paths.get(args[0]);
        int repeat = Integer.parseInt(args[1]);
        Path out = Paths.get(args[2]);
        List<Table> tables = new ArrayList<>();
        for (int n : new int[] {5, 7, 9}) {
            tables.add(new Table("adult" + n, dir.resolve("adult"), "adult.csv", Arrays.copyOf(ADULT, n)));
        }
        tables.add(new Table("cup", dir.resolve("cup"), "cup.csv", CUP));

        // JIT warm-up: one untimed call of every table's slowest cells before
        // any cell is timed, so that the first cells are not timed cold
        for (Table t : tables) {
            for (int k : KS) {
                new ARXAnonymizer().anonymize(t.data(), config(k, 0.05));
            }
        }
        List<String> cells = new ArrayList<>();
        for (Table t : tables) {
            for (int k : KS) {
                for (double sup : SUPPRESSION) {
                    long[] ns = new long[repeat];
                    ARXResult result = null;
                    for (int r = -1; r < repeat; r++) {
                        ARXConfiguration config = config(k, sup);
                        Data data = t.data();
                        long start = System.nanoTime();
                        result = new ARXAnonymizer().anonymize(data, config);
                        long took = System.nanoTime() - start;
                        if (r >= 0) {
                            ns[r] = took;
                        }
                    }
                    long[] sorted = ns.clone();
                    Arrays.sort(sorted);
                    double best = sorted[0] / 1e6;
                    double median = repeat % 2 == 1
                            ? sorted[repeat / 2] / 1e6
                            : (sorted[repeat / 2 - 1] + sorted[repeat / 2]) / 2e6;
                    ARXNode optimum = result.getGlobalOptimum();
                    StringBuilder levels = new StringBuilder("{");
                    String loss = "null";
                    if (optimum != null) {
                        int[] l = optimum.getTransformation();
                        String[] names = optimum.getQuasiIdentifyingAttributes();
                        for (int i = 0; i < l.length; i++) {
                            levels.append(i == 0 ? "" : ", ").append(json(names[i])).append(": ").append(l[i]);
                        }
                        loss = json(optimum.getHighestScore().toString());
                    }
                    levels.append("}");
                    StringBuilder times = new StringBuilder("[");
                    for (int r = 0; r < repeat; r++) {
                        times.append(r == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.3f", ns[r] / 1e6));
                    }
                    times.append("]");
                    String cell = String.format(Locale.ROOT,
                            "  {\"table\": %s, \"k\": %d, \"suppression\": %s, \"ms_best\": %.3f,"
                                    + " \"ms_median\": %.3f, \"ms\": %s, \"levels\": %s, \"loss\": %s}",
                            json(t.name), k, Double.toString(sup), best, median, times, levels, loss);
                    System.out.println(cell.trim());
                    cells.add(cell);
                }
            }
        }
        String text = "{\"arx\": " + json(System.getProperty("arx.version", "unknown"))
                + ", \"java\": " + json(System.getProperty("java.version"))
                + ", \"repeat\": " + repeat + ",\n \"cells\": [\n" + String.join(",\n", cells) + "\n]}\n";
        Files.write(out, text.getBytes(StandardCharsets.UTF_8));
    }
}
