/*
 * Beyond the compatibility test: what else Kafka's Java client does against a Kafka 2.5 broker. Each check prints
 * "NAME: ok" or "NAME: FAILED <why>"; all run, and the exit code is the number of failures (0: all passed).
 * Options: --bootstrap-server SERVERS --topic PREFIX [--command-config FILE]
 */

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.MemberToRemove;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.FileInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

public final class JavaFeaturesCheck {
    private interface Check {
        void run() throws Exception;
    }

    private final String bootstrap;
    private final String prefix;
    private final Properties security = new Properties();
    private int failures = 0;

    private JavaFeaturesCheck(Map<String, String> options) throws Exception {
        bootstrap = options.get("bootstrap-server");
        prefix = options.get("topic");
        if (options.containsKey("command-config")) {
            try (InputStream in = new FileInputStream(options.get("command-config"))) {
                security.load(in);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        JavaFeaturesCheck check = new JavaFeaturesCheck(options);
        check.runAll();
        System.out.println(check.failures == 0 ? "SUCCESS." : "FAILED: " + check.failures + " checks");
        System.out.flush();
        System.exit(Math.min(check.failures, 100));
    }

    private Properties props() {
        Properties properties = new Properties();
        properties.putAll(security);
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return properties;
    }

    private void check(String name, Check check) {
        try {
            check.run();
            System.out.println(name + ": ok");
        } catch (Throwable failure) {
            failures++;
            Throwable cause = failure instanceof ExecutionException ? failure.getCause() : failure;
            System.out.println(name + ": FAILED " + cause);
            cause.printStackTrace(System.err);
        }
    }

    /** A feature newer than Kafka 2.5: the client must refuse it as an unsupported version. */
    private void unsupported(String name, Check check) {
        check(name + " (unsupported by 2.5)", () -> {
            try {
                check.run();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof UnsupportedVersionException) {
                    return;
                }
                throw e;
            } catch (UnsupportedVersionException e) {
                return;
            }
            throw new IllegalStateException("worked, but Kafka 2.5 has no such API");
        });
    }

    /** What a send failed with (null if it succeeded). */
    private static Throwable failureOf(Future<RecordMetadata> send) throws InterruptedException {
        try {
            send.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }

    private void runAll() throws Exception {
        String topic = prefix + "-main";
        String txTopic = prefix + "-tx";
        String group = prefix + "-group";
        try (Admin admin = Admin.create(props())) {
            check("createTopics with configs", () -> admin.createTopics(List.of(
                new NewTopic(topic, 3, (short) 1).configs(Map.of("retention.ms", "3600000")),
                new NewTopic(txTopic, 1, (short) 1))).all().get());
            check("describeTopics with authorized operations", () -> {
                TopicDescription description = admin.describeTopics(Set.of(topic),
                    new DescribeTopicsOptions().includeAuthorizedOperations(true)).allTopicNames().get().get(topic);
                require(description.partitions().size() == 3, "3 partitions: " + description);
                require(description.authorizedOperations() != null
                    && description.authorizedOperations().contains(AclOperation.READ), "authorized ops: " + description);
            });
            check("describeCluster with authorized operations", () -> {
                Set<AclOperation> operations = admin.describeCluster(
                    new DescribeClusterOptions().includeAuthorizedOperations(true)).authorizedOperations().get();
                require(operations != null && operations.contains(AclOperation.DESCRIBE), "cluster ops: " + operations);
                require(admin.describeCluster().controller().get() != null, "a controller");
            });
            check("incrementalAlterConfigs and describeConfigs of a topic", () -> {
                ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
                admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("cleanup.policy", "compact,delete"), AlterConfigOp.OpType.SET)))).all().get();
                ConfigEntry entry = admin.describeConfigs(Set.of(resource)).all().get().get(resource).get("cleanup.policy");
                require("compact,delete".equals(entry.value()), "cleanup.policy: " + entry);
            });
            check("createPartitions", () -> {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4))).all().get();
                waitFor(() -> admin.describeTopics(Set.of(topic)).allTopicNames().get().get(topic)
                    .partitions().size() == 4, "4 partitions");
            });
            check("createAcls, describeAcls, deleteAcls", () -> {
                AclBinding binding = new AclBinding(new ResourcePattern(ResourceType.GROUP, prefix, PatternType.PREFIXED),
                    new AccessControlEntry("User:bob", "*", AclOperation.READ, AclPermissionType.ALLOW));
                admin.createAcls(List.of(binding)).all().get();
                waitFor(() -> admin.describeAcls(binding.toFilter()).values().get().contains(binding), "acl visible");
                Collection<AclBinding> deleted = admin.deleteAcls(List.of(binding.toFilter())).all().get();
                require(deleted.contains(binding), "deleted " + deleted);
            });
            check("describeLogDirs and describeReplicaLogDirs", () -> {
                int node = admin.describeCluster().nodes().get().iterator().next().id();
                require(!admin.describeLogDirs(Set.of(node)).allDescriptions().get().get(node).isEmpty(), "log dirs");
            });
            unsupported("describeUserScramCredentials", () -> admin.describeUserScramCredentials().all().get());
            unsupported("describeClientQuotas", () -> admin.describeClientQuotas(
                org.apache.kafka.common.quota.ClientQuotaFilter.all()).entities().get());
            unsupported("describeTopics by topic id", () -> admin.describeTopics(
                org.apache.kafka.common.TopicCollection.ofTopicIds(List.of(org.apache.kafka.common.Uuid.randomUuid())))
                .allTopicIds().get());
            unsupported("listOffsets for the max timestamp", () -> admin.listOffsets(
                Map.of(new TopicPartition(topic, 0), OffsetSpec.maxTimestamp())).all().get());
            unsupported("listTransactions", () -> admin.listTransactions().all().get());
            unsupported("describeProducers", () -> admin.describeProducers(List.of(new TopicPartition(topic, 0)))
                .all().get());
            unsupported("alterUserScramCredentials", () -> admin.alterUserScramCredentials(List.of(
                new org.apache.kafka.clients.admin.UserScramCredentialDeletion("nobody",
                    org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_256))).all().get());
            check("fenceProducers", () -> admin.fenceProducers(List.of(prefix + "-fenced")).all().get());
            check("describeFeatures: none on a 2.5 broker (its ApiVersions has no feature fields)", () -> {
                org.apache.kafka.clients.admin.FeatureMetadata features = admin.describeFeatures().featureMetadata().get();
                require(features.finalizedFeatures().isEmpty() && features.supportedFeatures().isEmpty(),
                    "features " + features);
            });
        }

        check("produce with gzip, lz4, zstd, snappy", () -> {
            for (String codec : List.of("gzip", "lz4", "zstd", "snappy")) {
                Properties properties = props();
                properties.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, codec);
                try (KafkaProducer<String, String> producer =
                         new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer())) {
                    for (int i = 0; i < 10; i++) {
                        producer.send(new ProducerRecord<>(topic, "k" + i, codec + "-" + i)).get();
                    }
                }
            }
        });

        check("a compacted topic refuses a batch's keyless records by name (KIP-467)", () -> {
            String compacted = prefix + "-compacted";
            try (Admin admin = Admin.create(props())) {
                admin.createTopics(List.of(new NewTopic(compacted, 1, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get();
            }
            // The checked producer makes no retry: a keyed record first, with retries, waits until the new
            // partition's leader serves it (under load its LeaderAndIsr can trail the metadata that names it).
            try (KafkaProducer<String, String> warmUp =
                     new KafkaProducer<>(props(), new StringSerializer(), new StringSerializer())) {
                warmUp.send(new ProducerRecord<>(compacted, 0, "served", "yes")).get();
            }
            Properties properties = props();
            properties.put(ProducerConfig.LINGER_MS_CONFIG, "1000");
            properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
            properties.put(ProducerConfig.RETRIES_CONFIG, "0");
            try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer())) {
                Future<RecordMetadata> keyed = producer.send(new ProducerRecord<>(compacted, 0, "k", "v"));
                Future<RecordMetadata> keyless = producer.send(new ProducerRecord<>(compacted, 0, null, "v"));
                producer.flush();
                Throwable named = failureOf(keyless);
                require(named instanceof org.apache.kafka.common.InvalidRecordException
                    && named.getMessage().contains("Compacted topic cannot accept message without key"),
                    "the keyless record: " + named);
                Throwable mate = failureOf(keyed);
                require(mate != null && !(mate instanceof org.apache.kafka.common.InvalidRecordException)
                    && mate.getMessage().contains("part of a batch which had one more more invalid records"),
                    "its keyed batch-mate: " + mate);
                System.out.println("keyless record: " + named.getMessage());
                System.out.println("its batch-mate: " + mate.getMessage());
            }
        });

        check("group consumer: subscribe, poll, commit, listOffsets by admin", () -> {
            Properties properties = props();
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            properties.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            properties.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, prefix + "-static");
            int seen = 0;
            try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                long deadline = System.currentTimeMillis() + 30_000;
                while (seen < 40 && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        seen++;
                    }
                }
                consumer.commitSync();
            }
            require(seen == 40, "40 records, got " + seen);
            try (Admin admin = Admin.create(props())) {
                Map<TopicPartition, OffsetAndMetadata> committed =
                    admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
                long total = committed.values().stream().mapToLong(OffsetAndMetadata::offset).sum();
                require(total == 40, "committed " + committed);
                require(admin.listConsumerGroups().all().get().stream().anyMatch(g -> g.groupId().equals(group)),
                    "listed");
                ConsumerGroupDescription description = admin.describeConsumerGroups(Set.of(group),
                    new DescribeConsumerGroupsOptions().includeAuthorizedOperations(true)).all().get().get(group);
                require(description.groupId().equals(group), "described " + description);
                Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
                for (TopicPartition partition : committed.keySet()) {
                    latest.put(partition, OffsetSpec.latest());
                }
                long end = admin.listOffsets(latest).all().get().values().stream().mapToLong(i -> i.offset()).sum();
                require(end == 40, "end offsets sum " + end);
                // A static member stays in its group after close() (no LeaveGroup): the admin removes it.
                admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions(
                    List.of(new MemberToRemove(prefix + "-static")))).all().get();
                TopicPartition first = new TopicPartition(topic, 0);
                admin.deleteConsumerGroupOffsets(group, Set.of(first)).all().get();
                admin.alterConsumerGroupOffsets(group, Map.of(first, new OffsetAndMetadata(0))).all().get();
                admin.deleteConsumerGroups(Set.of(group)).all().get();
            }
        });

        check("seek with a leader epoch: the position is validated (OffsetsForLeaderEpoch) and kept", () -> {
            Properties properties = props();
            properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
            TopicPartition partition = new TopicPartition(topic, 1);
            try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
                consumer.assign(List.of(partition));
                long end = consumer.endOffsets(List.of(partition)).get(partition);
                require(end >= 3, "records in partition 1: " + end);
                consumer.seek(partition, new OffsetAndMetadata(2, Optional.of(0), ""));
                List<Long> offsets = new ArrayList<>();
                long deadline = System.currentTimeMillis() + 20_000;
                while (offsets.size() < end - 2 && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        offsets.add(record.offset());
                        require(record.leaderEpoch().equals(Optional.of(0)), "leader epoch " + record.leaderEpoch());
                    }
                }
                require(!offsets.isEmpty() && offsets.get(0) == 2 && offsets.size() == end - 2, "offsets " + offsets);
            }
        });

        try (Admin admin = Admin.create(props())) {
            if (admin.describeCluster().nodes().get().size() >= 3) {
                check("after a leader change, a position past the old epoch's end is a log truncation (KIP-320)",
                    () -> leaderEpochValidation(admin, prefix + "-epochs"));
            }
        }

        unsupported("the consumer group protocol of KIP-848", () -> {
            Properties properties = props();
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, group + "-kip848");
            properties.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
            try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                long deadline = System.currentTimeMillis() + 20_000;
                while (System.currentTimeMillis() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }
        });

        check("deleteRecords and electLeaders", () -> {
            try (Admin admin = Admin.create(props())) {
                TopicPartition first = new TopicPartition(topic, 0);
                admin.deleteRecords(Map.of(first, RecordsToDelete.beforeOffset(1))).all().get();
                require(admin.listOffsets(Map.of(first, OffsetSpec.earliest())).all().get().get(first).offset() == 1,
                    "log start 1");
                try {
                    admin.electLeaders(ElectionType.PREFERRED, Set.of(first)).all().get();
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof org.apache.kafka.common.errors.ElectionNotNeededException)) {
                        throw e;
                    }
                }
                admin.listPartitionReassignments().reassignments().get();
            }
        });

        check("transactions: commit with sendOffsetsToTransaction, abort, read_committed", () -> {
            Properties properties = props();
            properties.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, prefix + "-txid");
            try (KafkaProducer<String, String> producer =
                     new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer())) {
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(txTopic, "committed"));
                producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 1), new OffsetAndMetadata(1)),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata(prefix + "-txgroup"));
                producer.commitTransaction();
                producer.beginTransaction();
                producer.send(new ProducerRecord<>(txTopic, "aborted"));
                producer.flush();
                producer.abortTransaction();
            }
            Properties consumerProps = props();
            consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
            List<String> values = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer())) {
                TopicPartition partition = new TopicPartition(txTopic, 0);
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                long deadline = System.currentTimeMillis() + 15_000;
                while (consumer.position(partition) < 4 && System.currentTimeMillis() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        values.add(record.value());
                    }
                }
            }
            require(values.equals(List.of("committed")), "read_committed saw " + values);
        });

        try (Admin admin = Admin.create(props())) {
            check("deleteTopics", () -> admin.deleteTopics(Set.of(topic, txTopic)).all().get());
        }
    }

    /** Five records under leader epoch 0, a preferred-leader move to broker 1, five more under epoch 1; then a
     *  consumer's positions carrying epoch 0 are validated against the new leader's epoch history. */
    private void leaderEpochValidation(Admin admin, String topic) throws Exception {
        TopicPartition partition = new TopicPartition(topic, 0);
        admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(0, 1, 2))))).all().get();
        waitFor(() -> isr(admin, topic) == 3, "3 replicas in sync");
        produceValues(topic, 5);
        admin.alterPartitionReassignments(Map.of(partition, Optional.of(
            new org.apache.kafka.clients.admin.NewPartitionReassignment(List.of(1, 2, 0))))).all().get();
        waitFor(() -> admin.listPartitionReassignments().reassignments().get().isEmpty(), "reassignment done");
        admin.electLeaders(ElectionType.PREFERRED, Set.of(partition)).all().get();
        waitFor(() -> admin.describeTopics(Set.of(topic)).allTopicNames().get().get(topic).partitions().get(0)
            .leader().id() == 1, "broker 1 leads");
        produceValues(topic, 5);

        Properties properties = props();
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(partition));
            consumer.seek(partition, new OffsetAndMetadata(3, Optional.of(0), ""));
            ConsumerRecord<String, String> first = pollOne(consumer);
            require(first.offset() == 3 && first.leaderEpoch().equals(Optional.of(0)), "first " + first);
            consumer.seek(partition, new OffsetAndMetadata(7, Optional.of(0), ""));
            try {
                pollOne(consumer);
                throw new IllegalStateException("no LogTruncationException for offset 7 of epoch 0");
            } catch (org.apache.kafka.clients.consumer.LogTruncationException truncation) {
                OffsetAndMetadata divergent = truncation.divergentOffsets().get(partition);
                require(divergent != null && divergent.offset() == 5
                    && divergent.leaderEpoch().equals(Optional.of(0)), "divergent " + truncation.divergentOffsets());
            }
        }
    }

    private static int isr(Admin admin, String topic) throws Exception {
        try {
            return admin.describeTopics(Set.of(topic)).allTopicNames().get().get(topic).partitions().get(0).isr().size();
        } catch (ExecutionException e) {
            return 0;
        }
    }

    private void produceValues(String topic, int count) throws Exception {
        Properties properties = props();
        properties.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                 new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, "value-" + i)).get();
            }
        }
    }

    private static ConsumerRecord<String, String> pollOne(KafkaConsumer<String, String> consumer) {
        long deadline = System.currentTimeMillis() + 20_000;
        while (System.currentTimeMillis() < deadline) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                return record;
            }
        }
        throw new IllegalStateException("no record within 20 s");
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void waitFor(Condition condition, String what) throws Exception {
        long deadline = System.currentTimeMillis() + 30_000;
        while (!condition.holds()) {
            require(System.currentTimeMillis() < deadline, "timed out waiting for " + what);
            Thread.sleep(50);
        }
    }
}
