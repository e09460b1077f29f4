package org.deidentifier.arx;

import java.io.File;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.util.*;

import org.apache.commons.math3.fraction.BigFraction;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.framework.check.TransformationChecker;
import org.deidentifier.arx.framework.check.TransformationResult;
import org.deidentifier.arx.framework.check.groupify.HashGroupify;
import org.deidentifier.arx.framework.check.groupify.HashGroupifyEntry;
import org.deidentifier.arx.framework.data.DataManager;
import org.deidentifier.arx.framework.lattice.SolutionSpace;
import org.deidentifier.arx.framework.lattice.Transformation;
import org.deidentifier.arx.io.CSVHierarchyInput;
import org.deidentifier.arx.metric.Metric;
import org.deidentifier.arx.metric.v2.ILScore;



/**
 * Our own oracle driver: evaluates ARX's SafePub score functions (Metric.getScore) on EVERY node of the
 * generalization lattice, on the FULL table (no Bernoulli sampling), with classes of size < k suppressed.
 *
 * How sampling is disabled: an EDDifferentialPrivacy (data-dependent, deterministic) instance gets, via reflection,
 * k := chosen k, beta := 1.0 and subset := all rows before ARX initializes it. EDDifferentialPrivacy.initialize then
 * skips both the parameter calculation (beta >= 0) and the sampling (subset != null, not yet initialized).
 * Then the same pipeline as ARXAnonymizer.anonymize(manager, ...) is set up (DataManager, config.initialize, metric
 * initialize, TransformationChecker), and checker.check(node, true, ScoreType.DP_SCORE) is called for every node,
 * which is exactly the call DataDependentEDDPAlgorithm makes.
 *
 * Usage: DPScoreOracle data.csv hierDir k qi1,qi2,... [responseVar|-] out.csv
 */
public class DPScoreOracle {

    static String fmt(double x) { return new BigDecimal(x).round(new MathContext(17)).toString(); }

    static Data load(String csv, String hierDir, List<String> qis, String response) throws Exception {
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
        if (response != null) data.getDefinition().setResponseVariable(response, true);
        return data;
    }

    static class Run {
        Map<String, BigFraction> scores = new LinkedHashMap<>();
        Map<String, String> extra = new LinkedHashMap<>();
    }

    public static void main(String[] a) throws Exception {
        String csv = a[0], hierDir = a[1];
        int k = Integer.parseInt(a[2]);
        List<String> qis = Arrays.asList(a[3].split(","));
        String response = a[4].equals("-") ? null : a[4];
        String out = a[5];

        LinkedHashMap<String, Metric<?>> metrics = new LinkedHashMap<>();
        metrics.put("granularity", Metric.createLossMetric());                 // MetricMDNMLoss
        metrics.put("intensity", Metric.createPrecisionMetric(false));   // MetricMDNMPrecision
        metrics.put("entropy", Metric.createEntropyMetric(false));              // MetricMDNUNMEntropy -> MetricMDNUEntropyPrecomputed.getScore
        metrics.put("discernibility", Metric.createDiscernabilityMetric(false));   // MetricSDNMDiscernability
        metrics.put("aecs", Metric.createAECSMetric());                 // MetricSDAECS
        if (response != null) metrics.put("classification", Metric.createClassificationMetric()); // MetricSDClassification

        // node key -> metric -> score
        TreeMap<String, int[]> nodes = new TreeMap<>();
        Map<String, Map<String, BigFraction>> table = new HashMap<>();
        Map<String, String> suppressedInfo = new HashMap<>();
        String[] qiOrder = null;

        for (Map.Entry<String, Metric<?>> me : metrics.entrySet()) {
            Data data = load(csv, hierDir, qis, response);
            ARXConfiguration config = ARXConfiguration.create();
            config.setSuppressionLimit(1d);
            config.setQualityModel(me.getValue());
            config.setHeuristicSearchStepLimit(1000);
            EDDifferentialPrivacy dp = new EDDifferentialPrivacy(1d, 1e-5, null, true);
            DataHandle handle = data.getHandle();
            int n = handle.getNumRows();
            Set<Integer> all = new HashSet<>();
            for (int i = 0; i < n; i++) all.add(i);
            setField(dp, "k", k);
            setField(dp, "beta", 1.0d);
            setField(dp, "subset", DataSubset.create(n, all));
            config.addPrivacyModel(dp);

            // Same steps as ARXAnonymizer.anonymize(Data, config) / anonymize(manager, definition, config)
            handle.getDefinition().materializeHierarchies(handle);
            handle.getRegistry().reset();
            DataHandleInput in = (DataHandleInput) handle;
            DataManager manager = new DataManager(in.header, in.data, in.dictionary, handle.getDefinition(),
                                                  new HashMap<>(), config);
            handle.getRegistry().createInputSubset(config);
            config.initialize(manager);
            SolutionSpace<?> space = SolutionSpace.create(manager.getHierarchiesMinLevels(), manager.getHierarchiesMaxLevels());
            config.getQualityModel().initialize(manager, handle.getDefinition(), manager.getDataGeneralized(), manager.getHierarchies(), config);
            TransformationChecker checker = new TransformationChecker(manager, config.getQualityModel(), config.getInternalConfiguration(),
                                                                      200, 0.2d, 0.8d, space);
            if (dp.getK() != k || dp.getBeta() != 1d || dp.getDataSubset().getArray().length != n) throw new RuntimeException("override failed");
            qiOrder = manager.getDataGeneralized().getHeader();

            Field fg = TransformationChecker.class.getDeclaredField("currentGroupify");
            fg.setAccessible(true);

            List<Object> ids = new ArrayList<>();
            var it = space.unsafeGetAllTransformations();
            while (it.hasNext()) ids.add(it.next());
            for (Object id : ids) {
                Transformation<?> t = space.getTransformation(id);
                TransformationResult r = checker.check(t, true, TransformationChecker.ScoreType.DP_SCORE);
                BigFraction s = ((ILScore) r.informationLoss).getValue();
                int[] g = t.getGeneralization();
                String key = Arrays.toString(g);
                nodes.put(key, g.clone());
                table.computeIfAbsent(key, x -> new LinkedHashMap<>()).put(me.getKey(), s);
                if (!suppressedInfo.containsKey(key)) {
                    HashGroupify gr = (HashGroupify) fg.get(checker);
                    int sup = 0, classes = 0, kept = 0;
                    HashGroupifyEntry e = gr.getFirstEquivalenceClass();
                    while (e != null) {
                        classes++;
                        if (!e.isNotOutlier) sup += e.count; else kept++;
                        sup += e.pcount - e.count;
                        e = e.nextOrdered;
                    }
                    suppressedInfo.put(key, sup + "," + classes + "," + kept);
                }
            }
        }

        StringBuilder sb = new StringBuilder();
        sb.append(String.join(",", qiOrder));
        for (String m : metrics.keySet()) sb.append(",").append(m);
        sb.append(",suppressed,classes,kept_classes\n");
        for (Map.Entry<String, int[]> e : nodes.entrySet()) {
            int[] g = e.getValue();
            for (int i = 0; i < g.length; i++) sb.append(i == 0 ? "" : ",").append(g[i]);
            for (String m : metrics.keySet()) sb.append(",").append(fmt(table.get(e.getKey()).get(m).doubleValue()));
            sb.append(",").append(suppressedInfo.get(e.getKey())).append("\n");
        }
        java.nio.file.Files.write(new File(out).toPath(), sb.toString().getBytes(StandardCharsets.UTF_8));
        System.out.println("wrote " + nodes.size() + " nodes, k=" + k + " qis(order)=" + Arrays.toString(qiOrder));
    }

    static void setField(Object o, String name, Object v) throws Exception {
        Field f = EDDifferentialPrivacy.class.getDeclaredField(name);
        f.setAccessible(true);
        f.set(o, v);
    }
}
