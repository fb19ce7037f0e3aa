package io.floe.format;

import static org.junit.Assert.fail;

import io.floe.format.types.Types;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * Every class of the format layer initializes in any order from several threads at once without
 * a deadlock. A class-initialization cycle (class A's static initializer needs B initialized while
 * B's needs A) hangs two threads that start on A and B at the same moment, forever; a JDBC server
 * whose first two sessions converted schemas at once hung so. Each round loads the classes afresh
 * in a class loader of its own and starts four threads on four shuffled orders. The Spark layer's
 * test (TestSparkClassInitialization) runs the same check on its classes.
 */
public class TestClassInitialization {
  private static final int THREADS = 4;
  private static final long TIMEOUT_SECONDS = 60;

  @Test
  public void classesInitializeInAnyOrderFromSeveralThreadsAtOnce() throws Exception {
    assertNoInitializationDeadlock(Types.class, "io.floe.format.", 25);
  }

  /**
   * Initializes every class of {@code pkg} (in the jar or directory {@code anchor} came from)
   * {@code rounds} times, each in a fresh class loader, from several threads in shuffled orders.
   */
  public static void assertNoInitializationDeadlock(Class<?> anchor, String pkg, int rounds)
      throws Exception {
    URL root = anchor.getProtectionDomain().getCodeSource().getLocation();
    List<String> names = classNames(Path.of(root.toURI()), pkg);
    if (names.size() < 50) {
      fail("found only " + names.size() + " classes of " + pkg + " under " + root);
    }
    for (int round = 0; round < rounds; round++) {
      runRound(round, root, pkg, names, anchor.getClassLoader());
    }
  }

  private static void runRound(int round, URL root, String pkg, List<String> names,
      ClassLoader parent) throws Exception {
    ClassLoader loader = new PackageFirst(root, pkg, parent);
    CyclicBarrier start = new CyclicBarrier(THREADS);
    List<Thread> threads = new ArrayList<>();
    List<Throwable> errors = Collections.synchronizedList(new ArrayList<>());
    for (int t = 0; t < THREADS; t++) {
      List<String> order = new ArrayList<>(names);
      Collections.shuffle(order, new Random(round * 1009L + t));
      Thread thread = new Thread(() -> {
        try {
          start.await();
          for (String name : order) {
            Class.forName(name, true, loader);
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      }, "class-init-" + round + "-" + t);
      thread.setDaemon(true); // a deadlocked thread cannot be stopped; it must not keep the JVM
      threads.add(thread);
      thread.start();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      if (thread.isAlive()) {
        fail("class initialization did not finish in " + TIMEOUT_SECONDS + " s (round " + round
            + "): a static initializer cycle deadlocked\n" + dump(threads));
      }
    }
    if (!errors.isEmpty()) {
      AssertionError failure = new AssertionError("a class failed to initialize: " + errors.get(0));
      failure.initCause(errors.get(0));
      throw failure;
    }
  }

  private static String dump(List<Thread> threads) {
    long[] ids = threads.stream().mapToLong(Thread::getId).toArray();
    return Stream.of(ManagementFactory.getThreadMXBean().getThreadInfo(ids, false, false))
        .filter(info -> info != null)
        .map(TestClassInitialization::describe)
        .collect(Collectors.joining("\n"));
  }

  private static String describe(ThreadInfo info) {
    StringBuilder text = new StringBuilder(info.getThreadName() + " " + info.getThreadState());
    StackTraceElement[] stack = info.getStackTrace();
    for (int i = 0; i < Math.min(stack.length, 12); i++) {
      text.append("\n    at ").append(stack[i]);
    }
    return text.toString();
  }

  private static List<String> classNames(Path root, String pkg) throws IOException {
    List<String> files = new ArrayList<>();
    if (Files.isDirectory(root)) {
      try (Stream<Path> walk = Files.walk(root)) {
        walk.map(root::relativize).map(Path::toString).forEach(files::add);
      }
    } else {
      try (JarFile jar = new JarFile(root.toFile())) {
        jar.stream().forEach(entry -> files.add(entry.getName()));
      }
    }
    return files.stream()
        .map(file -> file.replace('\\', '/').replace('/', '.'))
        .filter(name -> name.startsWith(pkg) && name.endsWith(".class"))
        .map(name -> name.substring(0, name.length() - ".class".length()))
        .sorted()
        .collect(Collectors.toList());
  }

  /** Loads the classes of one package itself (a fresh copy per loader), the rest from its parent. */
  private static final class PackageFirst extends URLClassLoader {
    private final String pkg;

    PackageFirst(URL root, String pkg, ClassLoader parent) {
      super(new URL[] {root}, parent);
      this.pkg = pkg;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
      if (!name.startsWith(pkg)) {
        return super.loadClass(name, resolve);
      }
      synchronized (getClassLoadingLock(name)) {
        Class<?> loaded = findLoadedClass(name);
        if (loaded == null) {
          loaded = findClass(name);
        }
        if (resolve) {
          resolveClass(loaded);
        }
        return loaded;
      }
    }
  }
}
