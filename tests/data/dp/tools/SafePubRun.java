import java.io.File;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXConfiguration.SearchStepSemantics;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.aggregates.StatisticsQuality;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.io.CSVHierarchyInput;
import org.deidentifier.arx.metric.Metric;

/**
 * End-to-end ARX SafePub runs (data-dependent (epsilon, delta)-DP), non-deterministic (SecureRandom for both the
 * Bernoulli sampling and the exponential mechanism), repeated R times.
 *
 * Usage: SafePubRun data.csv hierDir qi1,qi2,... epsTotal delta searchBudget steps runs out.csv
 *   data.csv: ';'-separated with header; hierarchies hierDir/<qi>.csv (';'-separated, ARX format).
 *   searchBudget is ABSOLUTE (ARXConfiguration.setDPSearchBudget); steps use SearchStepSemantics.EXPANSIONS.
 *   Suppression limit 1.0, quality model Metric.createLossMetric(), time limit Integer.MAX_VALUE ms.
 *
 * Output columns per run: run, <qi levels>, k, beta, sampled (|S|), not_suppressed (output rows with
 *   isOutlier == false), granularity_quality (getStatistics().getQualityStatistics().getGranularity()
 *   .getArithmeticMean()), granularity_loss (= 1 - granularity_quality), intensity_quality
 *   (getGeneralizationIntensity().getArithmeticMean()), anonymize_ms (wall time of anonymizer.anonymize),
 *   stats_ms (wall time of computing the quality statistics).
 */
public class SafePubRun {

    static Data load(String csv, String hierDir, List<String> qis) throws Exception {
        Data data = Data.create(csv, StandardCharsets.UTF_8, ';');
        DataHandle h = data.getHandle();
        for (int c = 0; c < h.getNumColumns(); c++) {
            String attr = h.getAttributeName(c);
            if (qis.contains(attr)) {
                CSVHierarchyInput hi = new CSVHierarchyInput(new File(hierDir, attr + ".csv"), StandardCharsets.UTF_8, ';');
                data.getDefinition().setAttributeType(attr, Hierarchy.create(hi.getHierarchy()));
            } else {
                data.getDefinition().setAttributeType(attr, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        return data;
    }

    public static void main(String[] a) throws Exception {
        String csv = a[0], hierDir = a[1];
        List<String> qis = Arrays.asList(a[2].split(","));
        double eps = Double.parseDouble(a[3]), delta = Double.parseDouble(a[4]), search = Double.parseDouble(a[5]);
        int steps = Integer.parseInt(a[6]), runs = Integer.parseInt(a[7]);
        try (PrintWriter out = new PrintWriter(a[8], "UTF-8")) {
            StringBuilder hdr = new StringBuilder("run");
            for (String q : qis) hdr.append(",").append(q);
            hdr.append(",k,beta,sampled,not_suppressed,granularity_quality,granularity_loss,intensity_quality,anonymize_ms,stats_ms");
            out.println(hdr);
            for (int r = 1; r <= runs; r++) {
                Data data = load(csv, hierDir, qis);
                ARXConfiguration config = ARXConfiguration.create();
                EDDifferentialPrivacy dp = new EDDifferentialPrivacy(eps, delta); // data-dependent, SecureRandom
                config.addPrivacyModel(dp);
                config.setDPSearchBudget(search);
                config.setHeuristicSearchStepLimit(steps, SearchStepSemantics.EXPANSIONS);
                config.setHeuristicSearchTimeLimit(Integer.MAX_VALUE);
                config.setSuppressionLimit(1d);
                config.setQualityModel(Metric.createLossMetric());

                long t0 = System.nanoTime();
                ARXResult result = new ARXAnonymizer().anonymize(data, config);
                long t1 = System.nanoTime();
                DataHandle output = result.getOutput();
                int notSup = 0;
                for (int i = 0; i < output.getNumRows(); i++) if (!output.isOutlier(i)) notSup++;
                long t2 = System.nanoTime();
                StatisticsQuality qs = output.getStatistics().getQualityStatistics();
                double gran = qs.getGranularity().getArithmeticMean();
                double inten = qs.getGeneralizationIntensity().getArithmeticMean();
                long t3 = System.nanoTime();

                StringBuilder sb = new StringBuilder().append(r);
                for (String q : qis) sb.append(",").append(result.getGlobalOptimum().getGeneralization(q));
                sb.append(",").append(dp.getK()).append(",").append(dp.getBeta())
                  .append(",").append(dp.getDataSubset().getArray().length)
                  .append(",").append(notSup)
                  .append(",").append(gran).append(",").append(1d - gran).append(",").append(inten)
                  .append(",").append((t1 - t0) / 1_000_000).append(",").append((t3 - t2) / 1_000_000);
                out.println(sb);
                out.flush();
                System.out.println(sb);
            }
        }
    }
}
