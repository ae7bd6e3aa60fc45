/*
 * The checks of Kafka's client compatibility test (tools' ClientCompatibilityTest, run by Kafka's
 * client_compatibility_features_test against each broker version), written for kafka-zk with Kafka's own Java
 * client library: its admin client, producer and consumer against our brokers.
 *
 * Options, as Kafka's tool takes them (each "true"/"false" says whether the broker should support the feature;
 * a feature said unsupported must fail with UnsupportedVersionException):
 *   --bootstrap-server HOST:PORT[,...]   --topic NAME (new, empty: the consumer checks our two records come first)
 *   --offsets-for-times-supported B  --cluster-id-supported B  --expect-record-too-large-exception B
 *   --num-cluster-nodes N  --create-topics-supported B  --describe-acls-supported B
 *   --describe-configs-supported B  --idempotent-producer-supported B
 * and two of ours:
 *   --consumer-group-delete-supported B   commit a group's offset, then delete the group through the admin client
 *   --command-config FILE                 client properties (security.protocol, sasl.*, ssl.*) for every client
 * Prints one line per check and "SUCCESS." at the end (exit 0), or "FAILED: ..." and a stack trace (exit 1).
 */

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ClusterResource;
import org.apache.kafka.common.ClusterResourceListener;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;

import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;

public final class ClientCompatibilityCheck {
    private static final long CONSUME_TIMEOUT_MS = 30_000;
    private static final long WAIT_TIMEOUT_MS = 30_000;
    private static final String NEW_TOPIC = "newtopic";

    private final Map<String, String> options;
    private final Properties security = new Properties();
    private final byte[] smallRecord;
    private final byte[] largeRecord;

    private interface Action {
        void run() throws Exception;
    }

    private ClientCompatibilityCheck(Map<String, String> options) throws Exception {
        this.options = options;
        String commandConfig = options.get("command-config");
        if (commandConfig != null) {
            try (InputStream in = new FileInputStream(commandConfig)) {
                security.load(in);
            }
        }
        long now = System.currentTimeMillis();
        smallRecord = ByteBuffer.allocate(8).putLong(now).array();
        // Bigger than the consumer's max.partition.fetch.bytes (512): since KIP-74 a broker still returns it.
        ByteBuffer large = ByteBuffer.allocate(4096);
        while (large.hasRemaining()) {
            large.putLong(now + large.position());
        }
        largeRecord = large.array();
    }

    public static void main(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                System.out.println("FAILED: expected an option, got " + args[i]);
                System.exit(2);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        if (args.length % 2 != 0 || !options.containsKey("bootstrap-server") || !options.containsKey("topic")) {
            System.out.println("FAILED: usage: --bootstrap-server SERVERS --topic TOPIC [--<feature> true|false ...]");
            System.exit(2);
        }
        try {
            new ClientCompatibilityCheck(options).run();
        } catch (Throwable failure) {
            System.out.println("FAILED: " + failure);
            failure.printStackTrace(System.out);
            System.out.flush();
            System.exit(1);
        }
        System.out.println("SUCCESS.");
        System.out.flush();
        System.exit(0);
    }

    private boolean flag(String name, boolean byDefault) {
        String value = options.get(name);
        return value == null ? byDefault : Boolean.parseBoolean(value);
    }

    private Properties clientProperties() {
        Properties properties = new Properties();
        properties.putAll(security);
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, options.get("bootstrap-server"));
        return properties;
    }

    private void run() throws Exception {
        long producedAfterMs = System.currentTimeMillis();
        try (Admin admin = Admin.create(clientProperties())) {
            checkClusterNodes(admin);
            feature("describeConfigs", flag("describe-configs-supported", true), () -> describeBrokerConfigs(admin));
            feature("createTopics", flag("create-topics-supported", true), () -> createNewTopic(admin));
            feature("describeAcls", flag("describe-acls-supported", true), () -> describeAcls(admin));
        }
        produce();
        consume(producedAfterMs);
        if (options.containsKey("consumer-group-delete-supported")) {
            feature("deleteConsumerGroups", flag("consumer-group-delete-supported", true), this::deleteGroup);
        }
    }

    /** Runs a feature; a supported one must work, an unsupported one must be refused as an unsupported version. */
    private static void feature(String name, boolean supported, Action action) throws Exception {
        try {
            action.run();
        } catch (ExecutionException wrapped) {
            if (!(wrapped.getCause() instanceof UnsupportedVersionException)) {
                throw wrapped;
            }
            refused(name, supported, wrapped.getCause());
            return;
        } catch (UnsupportedVersionException unsupported) {
            refused(name, supported, unsupported);
            return;
        }
        if (!supported) {
            throw new IllegalStateException(name + " worked, but the broker should not support it");
        }
        System.out.println(name + ": supported, as expected");
    }

    private static void refused(String name, boolean supported, Throwable why) {
        if (supported) {
            throw new IllegalStateException(name + " should be supported, but the broker refused it", why);
        }
        System.out.println(name + ": unsupported, as expected");
    }

    private static void awaitTrue(String what, Callable<Boolean> condition) throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_TIMEOUT_MS;
        while (!condition.call()) {
            if (System.currentTimeMillis() > deadline) {
                throw new IllegalStateException("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private void checkClusterNodes(Admin admin) throws Exception {
        int expected = Integer.parseInt(options.getOrDefault("num-cluster-nodes", "1"));
        awaitTrue(expected + " cluster nodes", () -> {
            Collection<Node> nodes = admin.describeCluster().nodes().get();
            if (nodes.size() > expected) {
                throw new IllegalStateException("expected " + expected + " nodes, saw " + nodes);
            }
            return nodes.size() == expected;
        });
        System.out.println("describeCluster: " + expected + " nodes, cluster id "
            + admin.describeCluster().clusterId().get());
    }

    private void describeBrokerConfigs(Admin admin) throws Exception {
        Node node = admin.describeCluster().nodes().get().iterator().next();
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, node.idString());
        Config config = admin.describeConfigs(Set.of(broker)).all().get().get(broker);
        if (config.entries().isEmpty()) {
            throw new IllegalStateException("broker " + node.idString() + " described no config entries");
        }
    }

    private void createNewTopic(Admin admin) throws Exception {
        admin.createTopics(Set.of(new NewTopic(NEW_TOPIC, 1, (short) 1))).all().get();
        awaitTrue(NEW_TOPIC + " described", () -> {
            try {
                admin.describeTopics(Set.of(NEW_TOPIC)).all().get();
                return true;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                    return false;
                }
                throw e;
            }
        });
        awaitTrue(NEW_TOPIC + " listed", () -> {
            for (TopicListing listing : admin.listTopics().listings().get()) {
                if (listing.name().equals(NEW_TOPIC)) {
                    if (listing.isInternal()) {
                        throw new IllegalStateException(NEW_TOPIC + " is listed as internal");
                    }
                    return true;
                }
            }
            return false;
        });
    }

    private void describeAcls(Admin admin) throws Exception {
        // Kafka's tool also accepts SecurityDisabledException here; our tests run an authorizer, so demand answers.
        Collection<AclBinding> bindings = admin.describeAcls(AclBindingFilter.ANY).values().get();
        System.out.println("describeAcls: " + bindings.size() + " bindings");
    }

    private void produce() throws Exception {
        Properties properties = clientProperties();
        if (!flag("idempotent-producer-supported", true)) {
            properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        }
        ByteArraySerializer serializer = new ByteArraySerializer();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(properties, serializer, serializer)) {
            RecordMetadata first = producer.send(new ProducerRecord<>(options.get("topic"), smallRecord)).get();
            RecordMetadata second = producer.send(new ProducerRecord<>(options.get("topic"), largeRecord)).get();
            System.out.println("produce: offsets " + first.offset() + " and " + second.offset()
                + " of " + first.topic() + "-" + first.partition() + "/" + second.partition());
        }
    }

    /** Hands records through unchanged and checks the cluster id the consumer learns from metadata. */
    private static final class ClusterIdCheckingDeserializer implements Deserializer<byte[]>, ClusterResourceListener {
        private final boolean expectClusterId;
        private volatile String seen = "(no metadata yet)";

        ClusterIdCheckingDeserializer(boolean expectClusterId) {
            this.expectClusterId = expectClusterId;
        }

        @Override
        public byte[] deserialize(String topic, byte[] data) {
            return data;
        }

        @Override
        public void onUpdate(ClusterResource cluster) {
            seen = cluster.clusterId();
            if (expectClusterId != (seen != null)) {
                throw new IllegalStateException("cluster id " + seen + " in metadata, expected one: " + expectClusterId);
            }
        }
    }

    private void consume(long producedAfterMs) throws Exception {
        Properties properties = clientProperties();
        properties.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 512);
        ClusterIdCheckingDeserializer deserializer = new ClusterIdCheckingDeserializer(flag("cluster-id-supported", true));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, deserializer, deserializer)) {
            List<TopicPartition> partitions = new ArrayList<>();
            Map<TopicPartition, Long> times = new HashMap<>();
            for (PartitionInfo info : consumer.partitionsFor(options.get("topic"))) {
                TopicPartition partition = new TopicPartition(info.topic(), info.partition());
                partitions.add(partition);
                times.put(partition, producedAfterMs);
            }
            if (partitions.isEmpty()) {
                throw new IllegalStateException("no partitions for topic " + options.get("topic"));
            }
            feature("offsetsForTimes", flag("offsets-for-times-supported", true), () -> {
                Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(times);
                System.out.println("offsetsForTimes: " + found);
            });
            System.out.println("beginningOffsets: " + consumer.beginningOffsets(partitions)
                + ", endOffsets: " + consumer.endOffsets(partitions));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<byte[]> values = new ArrayList<>();
            boolean tooLarge = false;
            long deadline = System.currentTimeMillis() + CONSUME_TIMEOUT_MS;
            while (values.size() < 2 && !tooLarge) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("consumed " + values.size() + " of 2 records in "
                        + CONSUME_TIMEOUT_MS + " ms");
                }
                try {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                        values.add(record.value());
                    }
                } catch (RecordTooLargeException e) {
                    tooLarge = true;
                }
            }
            boolean expectTooLarge = flag("expect-record-too-large-exception", false);
            if (tooLarge != expectTooLarge) {
                throw new IllegalStateException("RecordTooLargeException for a record over max.partition.fetch.bytes: "
                    + tooLarge + ", expected: " + expectTooLarge);
            }
            if (values.isEmpty() || !Arrays.equals(smallRecord, values.get(0))) {
                throw new IllegalStateException("the first record of the topic is not ours: use a new topic");
            }
            if (!tooLarge && !Arrays.equals(largeRecord, values.get(1))) {
                throw new IllegalStateException("the second record of the topic is not ours: use a new topic");
            }
            System.out.println("consume: " + values.size() + " records read back, cluster id " + deserializer.seen);
        }
    }

    /** Commits an offset for a new group (which makes the group exist), then deletes the group. */
    private void deleteGroup() throws Exception {
        String group = "client-compatibility-" + System.currentTimeMillis();
        Properties properties = clientProperties();
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        ByteArrayDeserializer bytes = new ByteArrayDeserializer();
        TopicPartition partition = new TopicPartition(options.get("topic"), 0);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(properties, bytes, bytes)) {
            consumer.assign(List.of(partition));
            consumer.commitSync(Map.of(partition, new OffsetAndMetadata(1)));
        }
        try (Admin admin = Admin.create(clientProperties())) {
            admin.deleteConsumerGroups(Set.of(group)).all().get();
            Map<TopicPartition, OffsetAndMetadata> left =
                admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            if (!left.isEmpty()) {
                throw new IllegalStateException("group " + group + " still has offsets after its deletion: " + left);
            }
        }
        System.out.println("deleteConsumerGroups: deleted " + group);
    }
}
