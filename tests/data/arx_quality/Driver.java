import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.DataType;
import org.deidentifier.arx.aggregates.StatisticsQuality;
import org.deidentifier.arx.aggregates.quality.QualityMeasureColumnOriented;
import org.deidentifier.arx.aggregates.quality.QualityMeasureRowOriented;
import org.deidentifier.arx.criteria.DistinctLDiversity;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.io.CSVHierarchyInput;

/**
 * ARX's StatisticsQuality for chosen nodes of a table (polars-anon's test
 * reference; see tests/data/arx_quality/generate.py, which writes the jobs
 * and runs this against ARX 3.9.2's sources).
 *
 * Usage: Driver data.csv hierarchy-dir jobs.txt
 *
 * One job a line: name;k;suppression-limit;types;l-diversity;levels where
 * types is "-" or attr=int|dec,...; l-diversity is "-" or attr=l (a sensitive
 * attribute with distinct l-diversity); levels is attr=level,... and names
 * the quasi-identifiers (every other column is insensitive). Each QI's level
 * is pinned (minimum = maximum generalization), so the lattice has one node.
 * Prints one JSON object a job: each quasi-identifier's measures, their
 * means over the attributes as ARX's GUI shows them (getArithmeticMean(false)),
 * and the dataset measures; a measure ARX reports unavailable or NaN is null.
 */
public class Driver {

    public static void main(String[] args) throws Exception {
        List<String[]> rows = new ArrayList<>();
        for (String line : Files.readAllLines(new File(args[0]).toPath(), StandardCharsets.UTF_8)) {
            rows.add(line.split(";", -1));
        }
        for (String job : Files.readAllLines(new File(args[2]).toPath(), StandardCharsets.UTF_8)) {
            if (!job.isBlank()) {
                System.out.println(run(rows, new File(args[1]), job.split(";", -1)));
            }
        }
    }

    private static Map<String, String> pairs(String spec) {
        Map<String, String> out = new LinkedHashMap<>();
        if (spec.equals("-")) {
            return out;
        }
        for (String kv : spec.split(",")) {
            String[] p = kv.split("=");
            out.put(p[0], p[1]);
        }
        return out;
    }

    private static String run(List<String[]> rows, File hierarchies, String[] job) throws Exception {
        int k = Integer.parseInt(job[1]);
        double limit = Double.parseDouble(job[2]);
        Map<String, String> types = pairs(job[3]);
        Map<String, String> ldiv = pairs(job[4]);
        Map<String, String> levels = pairs(job[5]);

        Data data = Data.create(rows);
        for (String attr : rows.get(0)) {
            data.getDefinition().setAttributeType(attr, AttributeType.INSENSITIVE_ATTRIBUTE);
        }
        for (Map.Entry<String, String> e : levels.entrySet()) {
            File file = new File(hierarchies, e.getKey() + ".csv");
            CSVHierarchyInput h = new CSVHierarchyInput(file, StandardCharsets.UTF_8, ';');
            int level = Integer.parseInt(e.getValue());
            data.getDefinition().setAttributeType(e.getKey(), Hierarchy.create(h.getHierarchy()));
            data.getDefinition().setMinimumGeneralization(e.getKey(), level);
            data.getDefinition().setMaximumGeneralization(e.getKey(), level);
        }
        for (Map.Entry<String, String> e : types.entrySet()) {
            DataType<?> type = e.getValue().equals("int") ? DataType.INTEGER : DataType.DECIMAL;
            data.getDefinition().setDataType(e.getKey(), type);
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new KAnonymity(k));
        for (Map.Entry<String, String> e : ldiv.entrySet()) {
            data.getDefinition().setAttributeType(e.getKey(), AttributeType.SENSITIVE_ATTRIBUTE);
            config.addPrivacyModel(new DistinctLDiversity(e.getKey(), Integer.parseInt(e.getValue())));
        }
        config.setSuppressionLimit(limit);
        ARXResult result = new ARXAnonymizer().anonymize(data, config);

        ARXLattice.ARXNode node = null;
        for (ARXLattice.ARXNode[] level : result.getLattice().getLevels()) {
            for (ARXLattice.ARXNode n : level) {
                boolean same = true;
                for (Map.Entry<String, String> e : levels.entrySet()) {
                    same &= n.getGeneralization(e.getKey()) == Integer.parseInt(e.getValue());
                }
                if (same) {
                    node = n;
                }
            }
        }
        DataHandle out = result.getOutput(node, false);
        int suppressed = 0;
        for (int r = 0; r < out.getNumRows(); r++) {
            suppressed += out.isOutlier(r) ? 1 : 0;
        }
        StatisticsQuality q = out.getStatistics().getQualityStatistics();

        StringBuilder json = new StringBuilder("{");
        json.append("\"name\": \"").append(job[0]).append("\", ");
        json.append("\"k\": ").append(k).append(", ");
        json.append("\"suppression_limit\": ").append(job[2]).append(", ");
        json.append("\"types\": \"").append(job[3]).append("\", ");
        json.append("\"l_diversity\": \"").append(job[4]).append("\", ");
        json.append("\"levels\": {");
        String sep = "";
        for (Map.Entry<String, String> e : levels.entrySet()) {
            json.append(sep).append('"').append(e.getKey()).append("\": ").append(e.getValue());
            sep = ", ";
        }
        json.append("}, ");
        json.append("\"rows\": ").append(out.getNumRows()).append(", ");
        json.append("\"suppressed\": ").append(suppressed).append(", ");
        json.append("\"anonymity\": \"").append(node.getAnonymity()).append("\", ");
        json.append("\"attributes\": {");
        sep = "";
        for (String attr : q.getAttributes()) {
            json.append(sep).append('"').append(attr).append("\": {");
            json.append("\"data_type\": \"").append(q.getDataType(attr)).append("\", ");
            json.append("\"generalization_intensity\": ")
                .append(value(q.getGeneralizationIntensity(), attr)).append(", ");
            json.append("\"granularity\": ").append(value(q.getGranularity(), attr)).append(", ");
            json.append("\"non_uniform_entropy\": ")
                .append(value(q.getNonUniformEntropy(), attr)).append(", ");
            json.append("\"missings\": ").append(value(q.getMissings(), attr)).append(", ");
            json.append("\"squared_error\": ")
                .append(value(q.getAttributeLevelSquaredError(), attr)).append("}");
            sep = ", ";
        }
        json.append("}, ");
        json.append("\"means\": {");
        json.append("\"generalization_intensity\": ")
            .append(number(q.getGeneralizationIntensity().getArithmeticMean(false))).append(", ");
        json.append("\"granularity\": ")
            .append(number(q.getGranularity().getArithmeticMean(false))).append(", ");
        json.append("\"non_uniform_entropy\": ")
            .append(number(q.getNonUniformEntropy().getArithmeticMean(false))).append(", ");
        json.append("\"missings\": ").append(number(q.getMissings().getArithmeticMean(false)))
            .append(", ");
        json.append("\"squared_error\": ")
            .append(number(q.getAttributeLevelSquaredError().getArithmeticMean(false)));
        json.append("}, ");
        json.append("\"ambiguity\": ").append(value(q.getAmbiguity())).append(", ");
        json.append("\"aecs\": ").append(value(q.getAverageClassSize())).append(", ");
        json.append("\"discernibility\": ").append(value(q.getDiscernibility())).append(", ");
        json.append("\"record_level_squared_error\": ")
            .append(value(q.getRecordLevelSquaredError())).append(", ");
        json.append("\"sse_sst\": ").append(value(q.getSSESST()));
        json.append("}");
        data.getHandle().release();
        return json.toString();
    }

    private static String number(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "null" : Double.toString(v);
    }

    private static String value(QualityMeasureColumnOriented m, String attr) {
        return m.isAvailable(attr) ? number(m.getValue(attr)) : "null";
    }

    private static String value(QualityMeasureRowOriented m) {
        return m.isAvailable() ? number(m.getValue()) : "null";
    }
}
