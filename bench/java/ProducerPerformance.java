import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.SplittableRandom;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Kafka's producer performance tool (org.apache.kafka.tools.ProducerPerformance, kafka-producer-perf-test.sh)
 * as far as bench/java_producer_perf.py uses it, on Kafka's own Java client: the same options (--topic
 * --num-records --record-size --throughput --producer-props k=v ... --producer.config FILE --warmup-records N), a
 * fresh random payload of upper-case letters for every record, send() with a callback timing each record from send
 * to acknowledgement, a line per 5-second window and the summary line with the 50th/95th/99th/99.9th percentiles
 * (and a second, "steady state" one for the records sent after the warm-up), in the tool's own format.
 */
public final class ProducerPerformance {
    private static final long WINDOW_MS = 5000;
    private static final int MAX_SAMPLES = 500000;
    private static final int MAX_ERRORS_SHOWN = 5;

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: ProducerPerformance --topic TOPIC --num-records N --record-size BYTES "
                    + "--throughput RATE|-1 [--producer-props k=v ...] [--producer.config FILE] [--warmup-records N]");
            System.exit(1);
            return;
        }
        Stats stats = new Stats(options.numRecords, "");
        Stats steady = null;
        if (options.warmupRecords > 0) {
            System.out.println("Warmup first " + options.warmupRecords + " records. Steady state results will print "
                    + "after the complete test summary.");
        }
        Throttle throttle = new Throttle(options.throughput);
        SplittableRandom random = new SplittableRandom(0);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(options.producerProperties())) {
            // send() copies the value into its batch before it returns, so one array serves every record.
            byte[] payload = new byte[options.recordSize];
            stats.start();
            for (long sent = 0; sent < options.numRecords; sent++) {
                for (int i = 0; i < payload.length; i++) {
                    payload[i] = (byte) ('A' + random.nextInt(26));
                }
                long sendMs = System.currentTimeMillis();
                if (sent == options.warmupRecords && sent > 0) {
                    steady = new Stats(options.numRecords - sent, " steady state");
                    steady.start();
                    stats.stopWindows();
                }
                Callback callback = steady == null ? stats.callback(sendMs, payload.length)
                        : Stats.callback(stats, steady, sendMs, payload.length);
                producer.send(new ProducerRecord<>(options.topic, payload), callback);
                throttle.pace(sent + 1, sendMs);
            }
        }
        stats.printTotal();
        if (steady != null) {
            steady.printTotal();
        }
        if (stats.failed() > 0) {
            System.err.println(stats.failed() + " records failed");
            System.exit(2);
        }
    }

    /** The command line, as the tool takes it. */
    static final class Options {
        String topic;
        long numRecords = -1;
        long warmupRecords = 0;
        int recordSize = -1;
        double throughput = Double.NaN;
        String configFile;
        final List<String> properties = new ArrayList<>();

        static Options parse(String[] args) {
            Options options = new Options();
            for (int i = 0; i < args.length; i++) {
                String name = args[i];
                if (name.equals("--producer-props")) {
                    while (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                        options.properties.add(args[++i]);
                    }
                    continue;
                }
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(name + " needs a value");
                }
                String value = args[++i];
                switch (name) {
                    case "--topic": options.topic = value; break;
                    case "--num-records": options.numRecords = Long.parseLong(value); break;
                    case "--record-size": options.recordSize = Integer.parseInt(value); break;
                    case "--warmup-records": options.warmupRecords = Long.parseLong(value); break;
                    case "--throughput": options.throughput = Double.parseDouble(value); break;
                    case "--producer.config": options.configFile = value; break;
                    default: throw new IllegalArgumentException("unknown option " + name);
                }
            }
            if (options.topic == null || options.numRecords <= 0 || options.recordSize <= 0
                    || Double.isNaN(options.throughput)) {
                throw new IllegalArgumentException("--topic, --num-records > 0, --record-size > 0 and --throughput "
                        + "are required");
            }
            if (options.warmupRecords < 0 || options.warmupRecords >= options.numRecords) {
                throw new IllegalArgumentException("--warmup-records must be fewer than --num-records");
            }
            if (options.properties.isEmpty() && options.configFile == null) {
                throw new IllegalArgumentException("either --producer-props or --producer.config is required");
            }
            return options;
        }

        /** The config file's settings, then --producer-props over them; byte-array serializers. */
        Properties producerProperties() throws IOException {
            Properties props = new Properties();
            if (configFile != null) {
                try (InputStream in = new FileInputStream(configFile)) {
                    props.load(in);
                }
            }
            for (String pair : properties) {
                int equals = pair.indexOf('=');
                if (equals <= 0) {
                    throw new IllegalArgumentException("not a key=value setting: " + pair);
                }
                props.put(pair.substring(0, equals), pair.substring(equals + 1));
            }
            props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "perf-producer-client");
            return props;
        }
    }

    /** Sleeps the sending loop when it runs ahead of the requested records per second (none with -1). */
    static final class Throttle {
        private final double perSecond;
        private long startMs = -1;

        Throttle(double perSecond) {
            this.perSecond = perSecond;
        }

        void pace(long sent, long nowMs) throws InterruptedException {
            if (perSecond <= 0) {
                return;
            }
            if (startMs < 0) {
                startMs = nowMs;
            }
            long dueMs = startMs + (long) (sent * 1000.0 / perSecond);
            if (dueMs > nowMs) {
                Thread.sleep(dueMs - nowMs);
            }
        }
    }

    /**
     * Acknowledged records and bytes, latency totals, a 5-second window, and every n-th latency kept (at most
     * MAX_SAMPLES) for the percentiles. Callbacks run on the producer's I/O thread, one at a time.
     */
    static final class Stats {
        private final String label;
        private final long sampleEvery;
        private boolean printWindows = true;
        private final int[] samples;
        private int sampled;
        private long acknowledged;
        private long startMs;
        private long count;
        private long bytes;
        private long latencySum;
        private int latencyMax;
        private long windowStartMs;
        private long windowCount;
        private long windowBytes;
        private long windowLatencySum;
        private int windowLatencyMax;
        private long failed;

        Stats(long numRecords, String label) {
            this.label = label;
            this.sampleEvery = Math.max(1, numRecords / Math.min(numRecords, MAX_SAMPLES));
            this.samples = new int[(int) (numRecords / sampleEvery) + 1];
        }

        void start() {
            startMs = System.currentTimeMillis();
            windowStartMs = startMs;
        }

        Callback callback(long sendMs, int size) {
            return (RecordMetadata metadata, Exception error) -> completed(sendMs, size, error);
        }

        /** A callback counting the record in the whole run's stats and in the steady state's (after warm-up). */
        static Callback callback(Stats whole, Stats steady, long sendMs, int size) {
            return (RecordMetadata metadata, Exception error) -> {
                whole.completed(sendMs, size, error);
                steady.completed(sendMs, size, error);
            };
        }

        /** From now on the steady state's stats print the windows, not these. */
        synchronized void stopWindows() {
            printWindows = false;
        }

        synchronized long failed() {
            return failed;
        }

        private synchronized void completed(long sendMs, int size, Exception error) {
            long now = System.currentTimeMillis();
            if (error != null) {
                if (failed++ < MAX_ERRORS_SHOWN) {
                    error.printStackTrace();
                }
                return;
            }
            int latency = (int) (now - sendMs);
            if (acknowledged++ % sampleEvery == 0 && sampled < samples.length) {
                samples[sampled++] = latency;
            }
            count++;
            bytes += size;
            latencySum += latency;
            latencyMax = Math.max(latencyMax, latency);
            windowCount++;
            windowBytes += size;
            windowLatencySum += latency;
            windowLatencyMax = Math.max(windowLatencyMax, latency);
            if (now - windowStartMs >= WINDOW_MS) {
                if (printWindows) {
                    printWindow(now);
                }
                windowStartMs = now;
                windowCount = 0;
                windowBytes = 0;
                windowLatencySum = 0;
                windowLatencyMax = 0;
            }
        }

        private void printWindow(long now) {
            double seconds = (now - windowStartMs) / 1000.0;
            System.out.printf("%d records sent, %.1f records/sec (%.2f MB/sec), %.1f ms avg latency, "
                            + "%.1f ms max latency.%n", windowCount, windowCount / seconds,
                    windowBytes / seconds / (1024.0 * 1024.0), windowLatencySum / (double) windowCount,
                    (double) windowLatencyMax);
        }

        synchronized void printTotal() {
            double seconds = (System.currentTimeMillis() - startMs) / 1000.0;
            int[] sorted = Arrays.copyOf(samples, sampled);
            Arrays.sort(sorted);
            System.out.printf("%d%s records sent, %f records/sec (%.2f MB/sec), %.2f ms avg latency, "
                            + "%.2f ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.%n",
                    count, label, count / seconds, bytes / seconds / (1024.0 * 1024.0),
                    count == 0 ? 0.0 : latencySum / (double) count, (double) latencyMax,
                    percentile(sorted, 0.5), percentile(sorted, 0.95), percentile(sorted, 0.99),
                    percentile(sorted, 0.999));
        }

        private static int percentile(int[] sorted, double fraction) {
            return sorted.length == 0 ? 0 : sorted[Math.min(sorted.length - 1, (int) (fraction * sorted.length))];
        }
    }
}
