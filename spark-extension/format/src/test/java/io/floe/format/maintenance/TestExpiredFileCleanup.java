package io.floe.format.maintenance;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.floe.format.io.FileIO;
import io.floe.format.metadata.Snapshot;
import io.floe.format.metadata.TableMetadata;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * On many random histories, the fast cleanup plan (when it applies) names exactly the files of the
 * reference plan, the reference plan names exactly the files reachable before and not after, and no
 * file a retained snapshot or ref reaches is ever named.
 */
public class TestExpiredFileCleanup {
  private static final int HISTORIES = 15;

  @Rule
  public TemporaryFolder temp = new TemporaryFolder();

  private int fastPlans;
  private int comparedPlans;
  private int nonEmptyFastPlans;

  @Test
  public void fastPlanMatchesReferenceOnRandomHistoriesV3() throws Exception {
    runHistories(3, 1000);
  }

  @Test
  public void fastPlanMatchesReferenceOnRandomHistoriesV2() throws Exception {
    runHistories(2, 2000);
  }

  private void runHistories(int formatVersion, long seedBase) throws Exception {
    for (int h = 0; h < HISTORIES; h++) {
      long seed = seedBase + h;
      Random random = new Random(seed);
      ExpireFixtures table = new ExpireFixtures(temp.getRoot().toPath(), "t" + seed, formatVersion, random);
      for (int round = 0; round < 3; round++) {
        int steps = 4 + random.nextInt(8);
        for (int i = 0; i < steps; i++) {
          table.randomStep(formatVersion);
        }
        expireRandomly(table, random, "seed " + seed + " round " + round);
      }
    }
    assertTrue("the fast plan must apply to many histories, applied " + fastPlans + " of " + comparedPlans,
        fastPlans * 3 >= comparedPlans);
    assertTrue("the fast plan must delete files in many histories", nonEmptyFastPlans >= 10);
  }

  private void expireRandomly(ExpireFixtures table, Random random, String context) throws Exception {
    TableMetadata before = table.current();
    List<Snapshot> snapshots = before.snapshots();
    if (snapshots.isEmpty()) {
      return;
    }
    long newest = snapshots.stream().mapToLong(Snapshot::timestampMillis).max().getAsLong();
    Snapshot pivot = snapshots.get(random.nextInt(snapshots.size()));
    ExpireSnapshots expire = new ExpireSnapshots(table.ops).now(newest + 20)
        .expireOlderThan(pivot.timestampMillis() + (random.nextBoolean() ? 1 : 0))
        .retainLast(1 + random.nextInt(3));
    if (random.nextInt(4) == 0) {
      Set<Long> heads = new HashSet<>();
      before.refs().values().forEach(r -> heads.add(r.snapshotId()));
      List<Snapshot> candidates = new ArrayList<>(snapshots);
      candidates.removeIf(s -> heads.contains(s.snapshotId()));
      if (!candidates.isEmpty()) {
        expire.expireSnapshotId(candidates.get(random.nextInt(candidates.size())).snapshotId());
      }
    }
    TableMetadata after = expire.apply(before);
    FileIO io = table.ops.io();
    CleanupPlan reference = ExpiredFileCleanup.reference(io, before, after);
    Set<String> definition = ExpireFixtures.reachable(io, before);
    Set<String> retained = ExpireFixtures.reachable(io, after);
    definition.removeAll(retained);
    assertEquals(context + ": reference plan = reachable before minus reachable after", definition,
        reference.files().keySet());
    for (String file : reference.files().keySet()) {
      assertTrue(context + ": retained file named " + file, !retained.contains(file));
    }
    CleanupPlan fast = ExpiredFileCleanup.fast(io, before, after);
    comparedPlans++;
    if (fast != null) {
      fastPlans++;
      if (!fast.files().isEmpty()) {
        nonEmptyFastPlans++;
      }
      assertEquals(context + ": fast plan = reference plan", reference.files(), fast.files());
    }
    CleanupPlan chosen = ExpiredFileCleanup.plan(io, before, after);
    assertEquals(context + ": chosen plan", reference.files(), chosen.files());
    // commit and delete for real, so later rounds expire on top of gaps left by earlier ones
    if (after != before) {
      table.ops.commit(before, after);
      FileDeleter.delete(io, reference, 2);
    }
  }
}
