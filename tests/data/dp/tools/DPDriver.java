import org.deidentifier.arx.dp.ParameterCalculation;
import org.deidentifier.arx.reliability.IntervalArithmeticDouble;

/** Prints ARX's (k, beta) from ParameterCalculation for a grid of epsilon/delta.
 *  mode "anon": epsilon passed directly to ParameterCalculation (= anonymization share).
 *  mode "total": epsilon is the total budget; ARX (EDDifferentialPrivacy.initialize) subtracts the
 *  search budget (default 0.1) with interval arithmetic and uses the lower bound. */
public class DPDriver {
    static String fmt(double x) { return new java.math.BigDecimal(x).round(new java.math.MathContext(17)).toString(); }
    public static void main(String[] a) throws Exception {
        String mode = a.length > 0 ? a[0] : "anon";
        double search = a.length > 1 ? Double.parseDouble(a[1]) : 0.1;
        double[] eps = {0.1, 0.5, 1, 1.5, 2};
        double[] del = {1e-4, 1e-5, 1e-6, 1e-7};
        if (mode.equals("anon")) System.out.println("epsilon,delta,k,beta");
        else System.out.println("epsilon_total,epsilon_search,epsilon_anon,delta,k,beta");
        IntervalArithmeticDouble ia = new IntervalArithmeticDouble();
        for (double e : eps) for (double d : del) {
            if (mode.equals("anon")) {
                ParameterCalculation p = new ParameterCalculation(e, d);
                System.out.println(e + "," + d + "," + p.getK() + "," + fmt(p.getBeta()));
            } else {
                if (search >= e) { System.out.println(e + "," + search + ",NA," + d + ",NA,NA"); continue; }
                double ea = ia.sub(ia.createInterval(e), ia.createInterval(search)).lower;
                ParameterCalculation p = new ParameterCalculation(ea, d);
                System.out.println(e + "," + search + "," + fmt(ea) + "," + d + "," + p.getK() + "," + fmt(p.getBeta()));
            }
        }
    }
}
