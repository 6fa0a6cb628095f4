package reference;

import Evolution.Rulebase;
import MapElites.ReportAgent;
import com.fossgalaxy.games.fireworks.GameRunner;
import com.fossgalaxy.games.fireworks.GameStats;
import com.fossgalaxy.games.fireworks.ai.Agent;
import com.fossgalaxy.games.fireworks.ai.AgentPlayer;
import com.fossgalaxy.games.fireworks.ai.HistogramAgent;
import com.fossgalaxy.games.fireworks.ai.osawa.rules.OsawaDiscard;
import com.fossgalaxy.games.fireworks.ai.osawa.rules.TellPlayableCardOuter;
import com.fossgalaxy.games.fireworks.ai.rule.DiscardOldestFirst;
import com.fossgalaxy.games.fireworks.ai.rule.PlaySafeCard;
import com.fossgalaxy.games.fireworks.ai.rule.ProductionRuleAgent;
import com.fossgalaxy.games.fireworks.ai.rule.Rule;
import com.fossgalaxy.games.fireworks.ai.rule.TellAnyoneAboutUsefulCard;
import com.fossgalaxy.games.fireworks.ai.rule.TellAnyoneAboutUselessCard;
import com.fossgalaxy.games.fireworks.ai.rule.TellMostInformation;
import com.fossgalaxy.games.fireworks.ai.rule.random.DiscardProbablyUselessCard;
import com.fossgalaxy.games.fireworks.ai.rule.random.DiscardRandomly;
import com.fossgalaxy.games.fireworks.ai.rule.random.PlayProbablySafeCard;
import com.fossgalaxy.games.fireworks.ai.rule.random.TellRandomly;
import com.fossgalaxy.games.fireworks.ai.rule.simple.PlayIfCertain;
import com.fossgalaxy.games.fireworks.ai.rule.wrapper.IfRule;
import com.fossgalaxy.games.fireworks.ai.username.RuleBasedFlawed;
import com.fossgalaxy.games.fireworks.ai.username.RuleBasedIGGI;
import com.fossgalaxy.games.fireworks.ai.username.RuleBasedInternal;
import com.fossgalaxy.games.fireworks.ai.username.RuleBasedOuter;
import com.fossgalaxy.games.fireworks.ai.username.RuleBasedPiers;
import com.fossgalaxy.games.fireworks.ai.username.RuleBasedVanDeBergh;
import com.fossgalaxy.games.fireworks.ai.username.SampleLegalRandom;
import com.fossgalaxy.games.fireworks.state.GameState;
import com.fossgalaxy.games.fireworks.state.actions.Action;

import com.fossgalaxy.games.fireworks.state.Card;
import com.fossgalaxy.games.fireworks.state.CardColour;
import com.fossgalaxy.games.fireworks.state.Deck;
import com.fossgalaxy.games.fireworks.state.actions.DiscardCard;
import com.fossgalaxy.games.fireworks.state.actions.PlayCard;
import com.fossgalaxy.games.fireworks.state.actions.TellColour;
import com.fossgalaxy.games.fireworks.state.actions.TellValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * TraceBench: a copy of the hanabi-adhoc project's reference driver Bench.java (written for the
 * project, not derived from the GPL code), extended with the 'trace' command that logs every game
 * (deck order, every move, the rule that gave it, per-seat ReportAgent counters). It only *calls*
 * the Java reference (fossgalaxy/hanabi framework v0.2.1 + rocanaan/Hanabi-Map-Elites); build it
 * against a reference build, see tools/reference_trace/README.md.
 *
 * Driver for the Java reference (fossgalaxy framework + rocanaan/Hanabi-Map-Elites agents).
 *
 * Games are played exactly as Hanabi-Map-Elites' TestSuite/NewTestSuite.ConstantNumberPlayersTest
 * does: a new framework GameRunner per game, the evaluated AgentPlayer object reused across
 * games, every other seat a new AgentPlayer sharing the partner's policy object, the evaluated
 * agent's seat drawn with random.nextInt(n) and the deck seed with random.nextLong() from one
 * java.util.Random. The only difference: that Random is seeded from the command line (the
 * original drew its seed from an unseeded Random). Rules keep their own unseeded Randoms.
 *
 * Commands (all output is one JSON object per line on stdout):
 *   mirror AGENT POOL SIZES GAMES SEED            mirror (self-play) per size
 *   mixed  AGENT POOL SIZES GAMES SEED [SEAT]     agent + (n-1) copies of each pool agent
 *   speed  AGENT POOL PLAYERS GAMES WARMUP        mirror games/s (after WARMUP games)
 *   chrom  "g1,...,g15" PLAYERS GAMES SEED        HistogramAgent+ReportAgent mirror (MAP-Elites metrics)
 *   fires  AGENT POOL PLAYERS GAMES SEED          mirror with a rule-firing histogram
 *   trace  JOBFILE                                per-game traces (JSON lines), see traceJobs()
 * POOL: head (HME master 8e55f9e lists) or cig18 (lists before HME 6ac317f, 2018-05-06, with
 * the Internal/Outer registration swap that lasted until 2019-07-31); cig18s = cig18 with the
 * name "Internal" resolved to SampleRuleBased (see build()); may18s = cig18s with IGGI's final
 * LegalRandom of 6ac317f (Outer's TellUnknown fix of 6ac317f is on the class then registered as
 * "RuleBasedInternal", which SampleRuleBased shadows, so it does not enter this pool).
 * SEAT: random (default; TestSuite after 2018-04-29) or zero (evaluated agent always seat 0).
 */
public class TraceBench {

    static final String[] POOL = {"IGGI", "Internal", "Outer", "LegalRandom", "VanDenBergh", "Flawed", "Piers"};

    // ------------------------------------------------------------------ agents
    static ProductionRuleAgent pra(Rule... rules) {
        ProductionRuleAgent p = new ProductionRuleAgent();
        for (Rule r : rules) p.addRule(r);
        return p;
    }

    /** The agent registered under NAME in the given era. */
    static Agent build(String name, String pool) {
        // cig18s / may18s: "RuleBasedInternal" resolved to SampleRuleBased, which carried the same
        // @AgentBuilderStatic name until 2019-11-12 (HME 109d36a); the framework's AgentFinder keeps
        // one builder per name, and with the unmodified 2018 bytecode it returns SampleRuleBased.
        if ((pool.equals("cig18s") || pool.equals("may18s")) && name.equals("Internal"))
            return pra(new PlaySafeCard(), new TellRandomly(), new DiscardRandomly());
        if (pool.equals("cig18s")) pool = "cig18";
        if (pool.equals("may18s")) { // lists after HME 6ac317f (2018-05-06), names still swapped
            if (name.equals("IGGI")) return RuleBasedIGGI.buildRuleBased();
            pool = "cig18";
        }
        boolean cig18 = pool.equals("cig18");
        if (!cig18 && !pool.equals("head")) throw new IllegalArgumentException("pool " + pool);
        switch (name) {
            case "IGGI":
                if (cig18) // RuleBasedIGGI before 6ac317f: no final LegalRandom
                    return pra(new PlayIfCertain(), new PlaySafeCard(), new TellAnyoneAboutUsefulCard(),
                            new OsawaDiscard(), new DiscardOldestFirst());
                return RuleBasedIGGI.buildRuleBased();
            case "Internal":
                if (cig18) // the name "RuleBasedInternal" was on class RuleBasedOuter (2018 list)
                    return pra(new PlaySafeCard(), new OsawaDiscard(), new TellPlayableCardOuter(),
                            new TellRandomly(), new DiscardRandomly());
                return RuleBasedInternal.buildRuleBased();
            case "Outer":
                if (cig18) // the name "RuleBasedOuter" was on class RuleBasedInternal (unchanged list)
                    return RuleBasedInternal.buildRuleBased();
                return RuleBasedOuter.buildRuleBased();
            case "LegalRandom":
                return new SampleLegalRandom();
            case "VanDenBergh":
                if (cig18) { // 2018: DiscardProbablyUselessCard(1.0) instead of 0.99
                    java.util.function.BiFunction<Integer, GameState, Boolean> hasLives = (i, s) -> s.getLives() > 1;
                    return pra(new IfRule(hasLives, new PlayProbablySafeCard(0.6), new PlaySafeCard()),
                            new DiscardProbablyUselessCard(1.0), new TellAnyoneAboutUsefulCard(),
                            new TellAnyoneAboutUselessCard(), new TellMostInformation(),
                            new DiscardProbablyUselessCard(0.0));
                }
                return RuleBasedVanDeBergh.buildRuleBased();
            case "Flawed":
                return RuleBasedFlawed.buildRuleBased();
            case "Piers":
                return RuleBasedPiers.buildRuleBased();
            default:
                throw new IllegalArgumentException("unknown agent " + name);
        }
    }

    /** Records why a move failed (the exception is re-thrown unchanged: behaviour is untouched). */
    static class Watch implements Agent {
        final Agent inner;
        final Map<String, Integer> errors;
        Watch(Agent inner, Map<String, Integer> errors) { this.inner = inner; this.errors = errors; }
        @Override public Action doMove(int id, GameState s) {
            try {
                Action a = inner.doMove(id, s);
                if (a == null) errors.merge("null-action", 1, Integer::sum);
                return a;
            } catch (RuntimeException e) {
                String where = e.getStackTrace().length > 0 ? e.getStackTrace()[0].getClassName().replaceAll(".*\\.", "") : "?";
                errors.merge(e.getClass().getSimpleName() + "@" + where, 1, Integer::sum);
                throw e;
            }
        }
        @Override public void receiveID(int id) { inner.receiveID(id); }
        @Override public String toString() { return inner.toString(); }
    }

    // ------------------------------------------------------------------ games
    static class Cell {
        final List<Integer> scores = new ArrayList<>();
        int abnormal = 0;      // games ended by an exception / illegal move (GameStats.disqal > 0)
        long moves = 0;
        void add(GameStats st) { scores.add(st.score); if (st.disqal > 0) abnormal++; moves += st.moves; }
        double mean() { double s = 0; for (int x : scores) s += x; return s / scores.size(); }
        double sd() { double m = mean(), s = 0; for (int x : scores) s += (x - m) * (x - m); return Math.sqrt(s / (scores.size() - 1)); }
        double sem() { return sd() / Math.sqrt(scores.size()); }
    }

    /** TestSuite.ConstantNumberPlayersTest, with the score list kept. */
    static Cell constantNumberPlayers(int n, int games, AgentPlayer you, AgentPlayer other, Random random, boolean randomSeat) {
        Cell cell = new Cell();
        for (int i = 0; i < games; i++) {
            GameRunner runner = new GameRunner("test-game", n);
            int position = randomSeat ? random.nextInt(n) : 0;
            for (int pos = 0; pos < n; pos++) {
                if (pos == position) runner.addPlayer(you);
                else runner.addPlayer(new AgentPlayer(other.getName(), otherPolicy(other)));
            }
            cell.add(runner.playGame(random.nextLong()));
        }
        return cell;
    }

    // AgentPlayer.policy is protected; reach it the way TestSuite (same package) does.
    static Agent otherPolicy(AgentPlayer p) {
        try {
            java.lang.reflect.Field f = AgentPlayer.class.getDeclaredField("policy");
            f.setAccessible(true);
            return (Agent) f.get(p);
        } catch (ReflectiveOperationException e) { throw new RuntimeException(e); }
    }

    static int[] sizes(String s) {
        if (s.contains("-")) { String[] ab = s.split("-"); int a = Integer.parseInt(ab[0]), b = Integer.parseInt(ab[1]);
            int[] r = new int[b - a + 1]; for (int i = a; i <= b; i++) r[i - a] = i; return r; }
        String[] p = s.split(","); int[] r = new int[p.length]; for (int i = 0; i < p.length; i++) r[i] = Integer.parseInt(p[i]); return r;
    }

    static String json(Map<String, Object> m) {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (!first) b.append(", ");
            first = false;
            b.append('"').append(e.getKey()).append("\": ");
            Object v = e.getValue();
            if (v instanceof String) b.append('"').append(v).append('"');
            else if (v instanceof Double) b.append(String.format(Locale.ROOT, "%.6f", (Double) v));
            else if (v instanceof Map) {
                @SuppressWarnings("unchecked") Map<String, Object> mm = (Map<String, Object>) v;
                b.append(json(mm));
            } else b.append(v);
        }
        return b.append("}").toString();
    }

    static Map<String, Object> cellJson(String mode, String agent, String partner, String pool, int n, Cell c, Map<String, Integer> errors) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("mode", mode); m.put("agent", agent); m.put("partner", partner); m.put("pool", pool);
        m.put("players", n); m.put("games", c.scores.size()); m.put("mean", c.mean()); m.put("sd", c.sd());
        m.put("sem", c.sem()); m.put("abnormal_ends", c.abnormal); m.put("moves_per_game", (double) c.moves / c.scores.size());
        StringBuilder sb = new StringBuilder();
        for (int x : c.scores) { if (sb.length() > 0) sb.append(','); sb.append(x); }
        m.put("scores", "[" + sb + "]");
        Map<String, Object> err = new TreeMap<>(errors);
        m.put("errors", err);
        return m;
    }

    public static void main(String[] args) throws java.io.IOException {
        String cmd = args[0];
        switch (cmd) {
            case "trace": {
                java.io.PrintStream out = new java.io.PrintStream(new java.io.BufferedOutputStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), 1 << 16), false, "UTF-8");
                traceJobs(args[1], out);
                out.flush();
                break;
            }
            case "mirror": {
                String agent = args[1], pool = args[2]; int[] ns = sizes(args[3]); int games = Integer.parseInt(args[4]); long seed = Long.parseLong(args[5]);
                Map<String, Integer> errors = new TreeMap<>();
                AgentPlayer you = new AgentPlayer(agent, new Watch(build(agent, pool), errors));
                Random random = new Random(seed);
                for (int n : ns) {
                    errors.clear();
                    Cell c = constantNumberPlayers(n, games, you, you, random, true);
                    System.out.println(json(cellJson("mirror", agent, "self", pool, n, c, errors)).replace("\"[", "[").replace("]\"", "]"));
                }
                break;
            }
            case "mixed": {
                String agent = args[1], pool = args[2]; int[] ns = sizes(args[3]); int games = Integer.parseInt(args[4]); long seed = Long.parseLong(args[5]);
                boolean randomSeat = args.length < 7 || !args[6].equals("zero");
                Map<String, Integer> errors = new TreeMap<>();
                AgentPlayer you = new AgentPlayer(agent, new Watch(build(agent, pool), errors));
                Random random = new Random(seed);   // one Random per evaluated agent, as TestSuite
                for (String partner : POOL) {
                    AgentPlayer other = new AgentPlayer(partner, new Watch(build(partner, pool), errors));
                    for (int n : ns) {
                        errors.clear();
                        Cell c = constantNumberPlayers(n, games, you, other, random, randomSeat);
                        System.out.println(json(cellJson("mixed", agent, partner, pool + (randomSeat ? "" : "/seat0"), n, c, errors)).replace("\"[", "[").replace("]\"", "]"));
                    }
                }
                break;
            }
            case "speed": {
                String agent = args[1], pool = args[2]; int n = Integer.parseInt(args[3]); int games = Integer.parseInt(args[4]); int warm = Integer.parseInt(args[5]);
                AgentPlayer you = new AgentPlayer(agent, build(agent, pool));
                Random random = new Random(12345);
                constantNumberPlayers(n, warm, you, you, random, true);
                java.lang.management.ThreadMXBean tmx = java.lang.management.ManagementFactory.getThreadMXBean();
                com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
                long c0 = tmx.getCurrentThreadCpuTime(), p0 = os.getProcessCpuTime();
                long t0 = System.nanoTime();
                Cell c = constantNumberPlayers(n, games, you, you, random, true);
                double dt = (System.nanoTime() - t0) / 1e9;
                double thr = (tmx.getCurrentThreadCpuTime() - c0) / 1e9, proc = (os.getProcessCpuTime() - p0) / 1e9;
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("mode", "speed"); m.put("agent", agent); m.put("pool", pool); m.put("players", n); m.put("games", games);
                m.put("warmup", warm); m.put("seconds", dt); m.put("games_per_s", games / dt); m.put("moves_per_s", c.moves / dt);
                m.put("thread_cpu_s", thr); m.put("process_cpu_s", proc);
                m.put("games_per_thread_cpu_s", games / thr); m.put("games_per_process_cpu_s", games / proc);
                m.put("mean", c.mean());
                System.out.println(json(m));
                break;
            }
            case "chrom": {
                String[] g = args[1].split(","); int n = Integer.parseInt(args[2]); int games = Integer.parseInt(args[3]); long seed = Long.parseLong(args[4]);
                int[] chrom = new int[g.length]; for (int i = 0; i < g.length; i++) chrom[i] = Integer.parseInt(g[i].trim());
                Rulebase rb = new Rulebase(false);
                Rule[] rules = new Rule[chrom.length];
                for (int i = 0; i < chrom.length; i++) rules[i] = rb.ruleMapping(chrom[i]);
                HistogramAgent histo = rb.makeAgent(rules);
                ReportAgent report = new ReportAgent(histo);       // as RunMapElites: one ReportAgent, every seat
                AgentPlayer you = new AgentPlayer("report agent", report);
                Random random = new Random(seed);
                // per-game metrics too (mean of per-game ratios), from counter deltas
                double sumComm = 0, sumIpp = 0; int nComm = 0, nIpp = 0;
                Cell c = new Cell();
                for (int i = 0; i < games; i++) {
                    int ph0 = report.possibleHints, hg0 = report.hintsGiven, cp0 = report.countPlays, ti0 = report.totalInformationPlays;
                    Cell one = constantNumberPlayers(n, 1, you, you, random, true);
                    c.scores.addAll(one.scores); c.abnormal += one.abnormal; c.moves += one.moves;
                    int ph = report.possibleHints - ph0, hg = report.hintsGiven - hg0, cp = report.countPlays - cp0, ti = report.totalInformationPlays - ti0;
                    if (ph > 0) { sumComm += (double) hg / ph; nComm++; }
                    if (cp > 0) { sumIpp += (double) ti / (2.0 * cp); nIpp++; }
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("mode", "chrom"); m.put("chromosome", "[" + args[1] + "]"); m.put("players", n); m.put("games", games);
                m.put("mean", c.mean()); m.put("sem", c.sem()); m.put("abnormal_ends", c.abnormal);
                m.put("communicativeness", report.getCommunicativeness());
                m.put("ipp", report.getInformationPlays());
                m.put("risk_aversion", report.getRiskAversion());
                m.put("comm_mean_of_games", sumComm / nComm);
                m.put("ipp_mean_of_games", sumIpp / nIpp);
                m.put("possible_hints", report.possibleHints); m.put("hints_given", report.hintsGiven);
                m.put("plays", report.countPlays); m.put("known_attrs_on_plays", report.totalInformationPlays);
                StringBuilder h = new StringBuilder();
                for (int x : histo.histogram) { if (h.length() > 0) h.append(','); h.append(x); }
                m.put("rule_histogram", "[" + h + "]");
                System.out.println(json(m).replace("\"[", "[").replace("]\"", "]"));
                break;
            }
            case "fires": {
                String agent = args[1], pool = args[2]; int n = Integer.parseInt(args[3]); int games = Integer.parseInt(args[4]); long seed = Long.parseLong(args[5]);
                ProductionRuleAgent base = (ProductionRuleAgent) build(agent, pool);
                Counting counting = new Counting(base.getRules());
                Map<String, Integer> errors = new TreeMap<>();
                AgentPlayer you = new AgentPlayer(agent, new Watch(counting, errors));
                Cell c = constantNumberPlayers(n, games, you, you, new Random(seed), true);
                Map<String, Object> m = cellJson("fires", agent, "self", pool, n, c, errors);
                m.remove("scores");
                Map<String, Object> f = new LinkedHashMap<>();
                List<Rule> rl = counting.getRules();
                for (int i = 0; i < rl.size(); i++) f.put(i + ":" + rl.get(i).getClass().getSimpleName(), counting.fired[i]);
                f.put("none", counting.fired[rl.size()]);
                m.put("fired", f);
                System.out.println(json(m));
                break;
            }
            default:
                throw new IllegalArgumentException(cmd);
        }
    }

    // ================================================================== trace (added for hanabi-adhoc)
    //
    // trace JOBFILE : one JSON object per line on stdout. JOBFILE is tab-separated, one job a line
    // ('#' lines ignored):  CATEGORY  LABEL  SPEC  SIZES  GAMES  SEED
    //   SPEC = agent:NAME@POOL   (a registered agent, see build(); mirror play, ProductionRuleAgent
    //                             or SampleLegalRandom, exactly as the 'mirror' command plays it)
    //        | chrom:g1,g2,...   (Rulebase(false) genes -> Rulebase.makeAgent -> HistogramAgent, every
    //                             seat sharing that one policy object, as the 'chrom' command / RunMapElites)
    // For every job a {"type":"job"} line, then one {"type":"game"} line per game. Field meanings:
    // tools/reference_trace/README.md of the hanabi-adhoc project.

    /** Java CardColour ordinal -> project colour index (project order R,Y,G,W,B). */
    static final int[] JAVA_TO_PROJECT = new int[CardColour.values().length];
    static {
        for (CardColour c : CardColour.values()) {
            int p;
            switch (c.name()) {
                case "RED": p = 0; break;
                case "ORANGE": p = 1; break;   // the framework's fourth colour; the project calls it yellow
                case "GREEN": p = 2; break;
                case "WHITE": p = 3; break;
                case "BLUE": p = 4; break;
                default: throw new IllegalStateException("unknown colour " + c);
            }
            JAVA_TO_PROJECT[c.ordinal()] = p;
        }
    }
    static int pc(CardColour c) { return JAVA_TO_PROJECT[c.ordinal()]; }
    /** project card id = colour * 5 + (rank - 1) */
    static int cardId(Card c) { return pc(c.colour) * 5 + (c.value - 1); }
    static String javaCode(Card c) { return c.colour.name().substring(0, 1) + c.value; }

    /** The classes whose move is drawn from an unseeded java.util.Random. */
    static boolean isRandomised(Rule r) {
        return r instanceof TellRandomly || r instanceof DiscardRandomly
                || r instanceof com.fossgalaxy.games.fireworks.ai.rule.random.TellPlayableCard
                || r instanceof com.fossgalaxy.games.fireworks.ai.iggi.LegalRandom;
    }

    /** What happened during the current doMove (single-threaded driver: one static record). */
    static final class MoveCtx {
        int lastExecIndex = -1;
        Action lastExecResult = null;
        boolean lastExecValid = false;
        int raised = 0;                     // rule exceptions thrown (and swallowed by HistogramAgent)
        String raisedWhere = null;
        void reset() { lastExecIndex = -1; lastExecResult = null; lastExecValid = false; raised = 0; raisedWhere = null; }
    }
    static final MoveCtx CTX = new MoveCtx();

    /** Transparent rule wrapper: delegates canFire/couldFire/execute unchanged, notes execute results. */
    static final class Probe implements Rule {
        final Rule inner; final int index;
        Probe(Rule inner, int index) { this.inner = inner; this.index = index; }
        @Override public boolean canFire(int p, GameState s) {
            try { return inner.canFire(p, s); }
            catch (RuntimeException e) { noteRaise(e); throw e; }
        }
        @Override public boolean couldFire(int p, GameState s) { return inner.couldFire(p, s); }
        @Override public Action execute(int p, GameState s) {
            try {
                Action a = inner.execute(p, s);
                CTX.lastExecIndex = index; CTX.lastExecResult = a; CTX.lastExecValid = true;
                return a;
            } catch (RuntimeException e) { noteRaise(e); throw e; }
        }
        void noteRaise(RuntimeException e) {
            CTX.raised++;
            if (CTX.raisedWhere == null) {
                // the innermost frame, and the first frame in a rule's own source file
                StackTraceElement[] st = e.getStackTrace();
                String where = st.length > 0 ? st[0].getFileName() + ":" + st[0].getLineNumber() : "?";
                for (StackTraceElement f : st) {
                    String c = f.getClassName();
                    if (c.startsWith("reference.")) break;
                    if (c.startsWith("newrules.") || c.contains(".ai.rule.") || c.contains(".ai.osawa.") || c.contains(".ai.iggi.")) {
                        if (!(f.getFileName() + ":" + f.getLineNumber()).equals(where)) where += " in " + f.getFileName() + ":" + f.getLineNumber();
                        break;
                    }
                }
                CTX.raisedWhere = index + ":" + e.getClass().getSimpleName() + "@" + where;
            }
        }
        @Override public String toString() { return inner.toString(); }
    }

    static String ruleName(Rule r) {
        if (r instanceof Probe) r = ((Probe) r).inner;
        String n = r.getClass().getSimpleName();
        try { // parameters of the parametrised rules, when they expose them as fields
            StringBuilder b = new StringBuilder();
            for (java.lang.reflect.Field f : r.getClass().getDeclaredFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) continue;
                Class<?> t = f.getType();
                if (t == double.class || t == int.class || t == boolean.class || t == Double.class || t == Integer.class || t == Boolean.class) {
                    f.setAccessible(true);
                    if (b.length() > 0) b.append(' ');
                    b.append(f.get(r));
                }
            }
            if (r instanceof IfRule) {
                java.lang.reflect.Field fs = IfRule.class.getDeclaredField("success"); fs.setAccessible(true);
                java.lang.reflect.Field ff = IfRule.class.getDeclaredField("failure"); ff.setAccessible(true);
                Object s = fs.get(r), f = ff.get(r);
                b.append(ruleName((Rule) s));
                if (f != null) b.append(" else ").append(ruleName((Rule) f));
            }
            if (b.length() > 0) n += "(" + b + ")";
        } catch (ReflectiveOperationException e) { /* name only */ }
        return n;
    }

    /** Innermost policy call: catches an agent exception (notes it, returns null: the runner then
     *  ends the game exactly as the exception would have), records what the actor knew. */
    static final class Guard implements Agent {
        final Agent inner;
        String exception = null;
        int known = -1;     // for play/discard: bit0 colour known, bit1 rank known (actor's own view)
        Guard(Agent inner) { this.inner = inner; }
        @Override public Action doMove(int id, GameState s) {
            known = -1; exception = null;
            Action a;
            try { a = inner.doMove(id, s); }
            catch (RuntimeException e) {
                StackTraceElement[] st = e.getStackTrace();
                String where = st.length > 0 ? st[0].getFileName() + ":" + st[0].getLineNumber() : "?";
                exception = e.getClass().getSimpleName() + "@" + where;
                return null;
            }
            int slot = a instanceof PlayCard ? ((PlayCard) a).slot : a instanceof DiscardCard ? ((DiscardCard) a).slot : -1;
            if (slot >= 0) known = (s.getHand(id).getKnownColour(slot) != null ? 1 : 0) | (s.getHand(id).getKnownValue(slot) != null ? 2 : 0);
            return a;
        }
        @Override public void receiveID(int id) { inner.receiveID(id); }
    }

    /** GameRunner with access to the true state. */
    static final class TraceRunner extends GameRunner {
        TraceRunner(int n) { super("trace-game", n); }
        GameState trueState() { return state; }
    }

    /** One seat: AgentPlayer(ReportAgent(Guard(shared policy))) plus the move log. */
    static final class Seat implements com.fossgalaxy.games.fireworks.players.Player {
        final int seat; final AgentPlayer ap; final ReportAgent report; final Guard guard; final Trace trace;
        final boolean ruleAgent; final boolean randomAgent; final List<Rule> rules; final HistogramAgent histo;
        Seat(int seat, String name, Agent policy, List<Rule> probes, Trace trace) {
            this.seat = seat; this.trace = trace;
            this.guard = new Guard(policy);
            this.report = new ReportAgent(guard);
            this.ap = new AgentPlayer(name, report);
            this.ruleAgent = policy instanceof ProductionRuleAgent;
            this.randomAgent = !ruleAgent;   // SampleLegalRandom
            this.histo = policy instanceof HistogramAgent ? (HistogramAgent) policy : null;
            this.rules = probes;   // (HistogramAgent.getRules() is the empty list of its superclass)
        }
        @Override public Action getAction() {
            try { return getAction0(); }
            catch (RuntimeException e) {   // a bug of this driver, never of the reference: stop loudly
                e.printStackTrace();
                System.exit(3);
                return null;
            }
        }
        Action getAction0() {
            GameState s = trace.runner.trueState();
            int info = s.getInfomation();
            int ph = report.possibleHints, hg = report.hintsGiven, cp = report.countPlays, ti = report.totalInformationPlays, cd = report.countDiscards;
            double tp = report.totalPlayability, ds = report.totalDiscardSlot;
            int fb0 = histo != null ? histo.histogram.get(histo.histogram.size() - 1) : 0;
            CTX.reset();
            Action a = ap.getAction();
            int flags = 0, rule;
            if (guard.exception != null) {            // the agent raised: the game ends here
                flags |= 8;
                trace.end = "exception:" + guard.exception;
                // keep the ReportAgent counters as they were before this (failed) turn
                report.possibleHints = ph; report.hintsGiven = hg; report.countPlays = cp; report.totalInformationPlays = ti;
                report.countDiscards = cd; report.totalPlayability = tp; report.totalDiscardSlot = ds;
            }
            if (CTX.raised > 0) { flags |= 2; trace.raised += CTX.raised; if (trace.raisedFirst == null) trace.raisedFirst = CTX.raisedWhere; }
            if (randomAgent) { rule = -1; flags |= 1; }
            else if (histo != null && histo.histogram.get(histo.histogram.size() - 1) != fb0) { rule = -1; flags |= 1; } // HistogramAgent fallback: random legal move
            else if (CTX.lastExecValid && CTX.lastExecResult == a) {
                rule = CTX.lastExecIndex;
                if (isRandomised(((Probe) rules.get(rule)).inner)) flags |= 1;
            } else rule = -1;                          // no rule (ProductionRuleAgent default: raises)
            int kind, x = -1, y = -1;
            if (a == null) { kind = -1; if (guard.exception == null) { flags |= 32; trace.end = "null-action"; } }
            else if (a instanceof PlayCard) { kind = 0; x = ((PlayCard) a).slot; Card c = s.getCardAt(seat, x); y = c == null ? -1 : cardId(c); }
            else if (a instanceof DiscardCard) { kind = 1; x = ((DiscardCard) a).slot; Card c = s.getCardAt(seat, x); y = c == null ? -1 : cardId(c); }
            else if (a instanceof TellColour) { kind = 2; x = ((TellColour) a).player; y = ((TellColour) a).colour == null ? -1 : pc(((TellColour) a).colour); }
            else if (a instanceof TellValue) { kind = 3; x = ((TellValue) a).player; y = ((TellValue) a).value; }
            else { kind = -3; trace.end = "unknown-action:" + a.getClass().getSimpleName(); }
            if (a != null) {
                try { if (!a.isLegal(seat, s)) { flags |= 4; trace.end = "illegal"; } }
                catch (RuntimeException e) { flags |= 16; StackTraceElement[] st = e.getStackTrace(); trace.end = "legality-check-raised:" + e.getClass().getSimpleName() + "@" + (st.length > 0 ? st[0].getFileName() + ":" + st[0].getLineNumber() : "?"); } // the runner's own check raises too: game over
            }
            if ((flags & 1) != 0) trace.randomMoves++;
            trace.moves.append(trace.moves.length() > 1 ? "," : "").append('[').append(seat).append(',').append(kind).append(',')
                    .append(x).append(',').append(y).append(',').append(rule).append(',').append(info).append(',')
                    .append(guard.known).append(',').append(flags).append(']');
            return a;
        }
        @Override public void sendMessage(com.fossgalaxy.games.fireworks.state.events.GameEvent msg) { ap.sendMessage(msg); }
        @Override public void setID(int id, int nPlayers) { ap.setID(id, nPlayers); }
        @Override public String getName() { return ap.getName(); }
    }

    static final class Trace {
        TraceRunner runner;
        StringBuilder moves = new StringBuilder("[");
        String end = null;
        int randomMoves = 0, raised = 0;
        String raisedFirst = null;
    }

    static Agent buildSpec(String spec, List<Rule> outRules, List<Integer> genes) {
        if (spec.startsWith("agent:")) {
            String[] np = spec.substring(6).split("@");
            Agent a = build(np[0], np.length > 1 ? np[1] : "head");
            if (a instanceof ProductionRuleAgent) {
                List<Rule> l = ((ProductionRuleAgent) a).getRules();
                for (int i = 0; i < l.size(); i++) l.set(i, new Probe(l.get(i), i));
                outRules.addAll(l);
            }
            return a;
        }
        if (spec.startsWith("chrom:")) {
            String[] g = spec.substring(6).split(",");
            Rulebase rb = new Rulebase(false);
            Rule[] rules = new Rule[g.length];
            for (int i = 0; i < g.length; i++) {
                int gene = Integer.parseInt(g[i].trim());
                genes.add(gene);
                rules[i] = new Probe(rb.ruleMapping(gene), i);
                outRules.add(rules[i]);
            }
            return rb.makeAgent(rules);
        }
        throw new IllegalArgumentException("spec " + spec);
    }

    static String q(String s) { return '"' + s.replace("\\", "\\\\").replace("\"", "\\\"") + '"'; }

    static void traceJobs(String jobFile, java.io.PrintStream out) throws java.io.IOException {
        Map<String, Integer> ruleNameIdx = new LinkedHashMap<>();
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get(jobFile))) {
            if (line.trim().isEmpty() || line.startsWith("#")) continue;
            String[] f = line.split("\t");
            String category = f[0], label = f[1], spec = f[2];
            int[] ns = sizes(f[3]); int games = Integer.parseInt(f[4]); long seed = Long.parseLong(f[5]);
            List<Rule> rules = new ArrayList<>(); List<Integer> genes = new ArrayList<>();
            Agent policy = buildSpec(spec, rules, genes);
            StringBuilder rn = new StringBuilder("[");
            for (int i = 0; i < rules.size(); i++) {
                if (i > 0) rn.append(',');
                rn.append(q(ruleName(rules.get(i))));
            }
            rn.append(']');
            StringBuilder rr = new StringBuilder("[");
            for (int i = 0; i < rules.size(); i++) if (isRandomised(((Probe) rules.get(i)).inner)) { if (rr.length() > 1) rr.append(','); rr.append(i); }
            rr.append(']');
            out.println("{\"type\": \"job\", \"category\": " + q(category) + ", \"label\": " + q(label) + ", \"spec\": " + q(spec)
                    + ", \"sizes\": " + q(f[3]) + ", \"games\": " + games + ", \"seed\": " + seed
                    + ", \"policy\": " + q(policy instanceof HistogramAgent ? "HistogramAgent" : policy.getClass().getSimpleName())
                    + ", \"chromosome\": " + (genes.isEmpty() ? "null" : genes.toString().replace(" ", ""))
                    + ", \"rules\": " + rn + ", \"randomised_rule_positions\": " + rr + "}");
            Random random = new Random(seed);      // one Random per job, drawn as TestSuite does
            for (int n : ns) {
                for (int gi = 0; gi < games; gi++) {
                    Trace t = new Trace();
                    TraceRunner runner = new TraceRunner(n);
                    t.runner = runner;
                    int position = random.nextInt(n);
                    long deckSeed = random.nextLong();
                    Seat[] seats = new Seat[n];
                    for (int pos = 0; pos < n; pos++) {
                        seats[pos] = new Seat(pos, pos == position ? label : label + "-copy", policy, rules, t);
                        runner.addPlayer(seats[pos]);
                    }
                    // the deck order: BasicState.init(seed) = Deck.init(); Deck.shuffle(seed); then
                    // deal seat 0 slots 0..H-1, seat 1, ...; later draws continue from the top.
                    Deck deck = new Deck(); deck.init(); deck.shuffle(deckSeed);
                    List<Card> cards = deck.toList();
                    GameStats st = runner.playGame(deckSeed);
                    StringBuilder dk = new StringBuilder("["), dj = new StringBuilder();
                    for (Card c : cards) { if (dk.length() > 1) dk.append(','); dk.append(cardId(c)); dj.append(javaCode(c)); }
                    dk.append(']');
                    StringBuilder met = new StringBuilder("[");
                    for (int p = 0; p < n; p++) {
                        ReportAgent r = seats[p].report;
                        if (p > 0) met.append(',');
                        met.append(String.format(Locale.ROOT, "{\"possible_hints\": %d, \"hints_given\": %d, \"plays\": %d, \"known_attrs_on_plays\": %d, \"playability_sum\": %.9f, \"discards\": %d, \"discard_slot_sum\": %.9f}",
                                r.possibleHints, r.hintsGiven, r.countPlays, r.totalInformationPlays, r.totalPlayability, r.countDiscards, r.totalDiscardSlot));
                    }
                    met.append(']');
                    String end = t.end != null ? t.end : st.disqal > 0 ? "abnormal" : st.lives <= 0 ? "lives" : st.score == 25 ? "perfect" : "deck";
                    t.moves.append(']');
                    out.println("{\"type\": \"game\", \"category\": " + q(category) + ", \"label\": " + q(label)
                            + ", \"players\": " + n + ", \"game\": " + gi + ", \"job_seed\": " + seed + ", \"deck_seed\": " + deckSeed
                            + ", \"position\": " + position + ", \"first_seat\": 0, \"hand_size\": " + (n <= 3 ? 5 : 4)
                            + ", \"score\": " + st.score + ", \"lives\": " + st.lives + ", \"information\": " + st.information
                            + ", \"java_moves\": " + st.moves + ", \"disqualified\": " + st.disqal + ", \"end\": " + q(end)
                            + ", \"random_fired\": " + (t.randomMoves > 0) + ", \"random_moves\": " + t.randomMoves
                            + ", \"rule_exceptions\": " + t.raised + ", \"first_rule_exception\": " + (t.raisedFirst == null ? "null" : q(t.raisedFirst))
                            + ", \"deck\": " + dk + ", \"deck_java\": " + q(dj.toString())
                            + ", \"metrics\": " + met + ", \"moves\": " + t.moves + "}");
                }
            }
            out.flush();
        }
    }

    /** ProductionRuleAgent.doMove of v0.2.1, with a count of the rule that gave the move. */
    static class Counting extends ProductionRuleAgent {
        final int[] fired;
        Counting(List<Rule> r) { for (Rule x : r) addRule(x); fired = new int[r.size() + 1]; }
        @Override public Action doMove(int agentID, GameState state) {
            int i = 0;
            for (Rule rule : rules) {
                if (rule.canFire(agentID, state)) {
                    Action selected = rule.execute(agentID, state);
                    if (selected != null) { fired[i]++; return selected; }
                }
                i++;
            }
            fired[rules.size()]++;
            return doDefaultBehaviour(agentID, state);
        }
    }
}
