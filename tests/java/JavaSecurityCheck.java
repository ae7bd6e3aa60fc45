/*
 * Kafka's Java client on a secure cluster (SASL_SSL, the ACL authorizer, nothing allowed without an ACL): the
 * exceptions a user without ACLs meets, what ACLs let them do, a wrong password, and delegation tokens (create,
 * describe, renew, log in with one over SCRAM, expire). Each check prints "NAME: ok" or "NAME: FAILED <why>"; the
 * exit code is the number of failures.
 * Options: --bootstrap-server SERVERS --topic PREFIX --admin-config FILE --user-config FILE --user NAME
 *          [--sections acls,mechanisms,tokens,token-login,reauthentication]  (which groups of checks run; all by default)
 *          [--reauth-run-ms MS]  (how long the re-authentication check produces; the session must be shorter)
 */

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateDelegationTokenOptions;
import org.apache.kafka.clients.admin.ExpireDelegationTokenOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.token.delegation.DelegationToken;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.FileInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;

public final class JavaSecurityCheck {
    private interface Check {
        void run() throws Exception;
    }

    private final String bootstrap;
    private final String prefix;
    private final String user;
    private final Set<String> sections;
    private final Map<String, String> options;
    private final Properties adminConfig;
    private final Properties userConfig;
    private int failures = 0;

    private JavaSecurityCheck(Map<String, String> options) throws Exception {
        bootstrap = options.get("bootstrap-server");
        prefix = options.get("topic");
        user = options.get("user");
        this.options = options;
        sections = Set.of(options.getOrDefault("sections", "acls,mechanisms,tokens,token-login,reauthentication").split(","));
        adminConfig = load(options.get("admin-config"));
        userConfig = load(options.get("user-config"));
    }

    private static Properties load(String file) throws Exception {
        Properties properties = new Properties();
        try (InputStream in = new FileInputStream(file)) {
            properties.load(in);
        }
        return properties;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        JavaSecurityCheck check = new JavaSecurityCheck(options);
        check.runAll();
        System.out.println(check.failures == 0 ? "SUCCESS." : "FAILED: " + check.failures + " checks");
        System.out.flush();
        System.exit(Math.min(check.failures, 100));
    }

    private Properties as(Properties config) {
        Properties properties = new Properties();
        properties.putAll(config);
        properties.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG, "15000");
        properties.put(CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000");
        return properties;
    }

    private void check(String name, Check check) {
        try {
            check.run();
            System.out.println(name + ": ok");
        } catch (Throwable failure) {
            failures++;
            System.out.println(name + ": FAILED " + failure);
            failure.printStackTrace(System.err);
        }
    }

    /** Runs action and demands it fail with expected (itself or as the cause of an ExecutionException). */
    private static void expectFailure(Class<? extends Throwable> expected, Check action) throws Exception {
        Throwable seen = null;
        try {
            action.run();
        } catch (ExecutionException e) {
            seen = e.getCause();
        } catch (Exception e) {
            seen = e;
        }
        if (seen == null) {
            throw new IllegalStateException("worked, expected " + expected.getSimpleName());
        }
        if (!expected.isInstance(seen)) {
            throw new IllegalStateException("expected " + expected.getSimpleName() + ", got " + seen, seen);
        }
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new IllegalStateException(what);
        }
    }

    private KafkaProducer<String, String> producer(Properties config, Map<String, String> more) {
        Properties properties = as(config);
        properties.putAll(more);
        properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        return new KafkaProducer<>(properties, new StringSerializer(), new StringSerializer());
    }

    private void runAll() throws Exception {
        String topic = prefix + "-topic";
        String group = prefix + "-group";
        String principal = "User:" + user;
        try (Admin admin = Admin.create(as(adminConfig))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }

        if (sections.contains("acls")) {
            aclChecks(topic, group, principal);
        }
        if (sections.contains("tokens")) {
            tokenChecks();
        }
        if (sections.contains("token-login")) {
            tokenLoginCheck(topic);
        }
        if (sections.contains("mechanisms")) {
            mechanismChecks(topic);
        }
        if (sections.contains("reauthentication")) {
            reauthenticationCheck(topic);
        }
    }

    private void aclChecks(String topic, String group, String principal) throws Exception {
        try (Admin userAdmin = Admin.create(as(userConfig))) {
            check("without ACLs: listTopics shows nothing", () -> require(
                userAdmin.listTopics().names().get().isEmpty(), "topics listed"));
            check("without ACLs: describeAcls -> ClusterAuthorizationException", () -> expectFailure(
                ClusterAuthorizationException.class, () -> userAdmin.describeAcls(AclBindingFilter.ANY).values().get()));
            check("without ACLs: createTopics -> TopicAuthorizationException", () -> expectFailure(
                TopicAuthorizationException.class,
                () -> userAdmin.createTopics(List.of(new NewTopic(prefix + "-denied", 1, (short) 1))).all().get()));
            check("without ACLs: describeConfigs of a broker -> ClusterAuthorizationException", () -> expectFailure(
                ClusterAuthorizationException.class, () -> userAdmin.describeConfigs(
                    Set.of(new ConfigResource(ConfigResource.Type.BROKER, "0"))).all().get()));
            check("without ACLs: describeTopics -> TopicAuthorizationException", () -> expectFailure(
                TopicAuthorizationException.class, () -> userAdmin.describeTopics(Set.of(topic)).all().get()));
        }
        check("without ACLs: produce -> TopicAuthorizationException", () -> {
            try (KafkaProducer<String, String> producer =
                     producer(userConfig, Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false"))) {
                expectFailure(TopicAuthorizationException.class,
                    () -> producer.send(new ProducerRecord<>(topic, "denied")).get());
            }
        });
        check("without ACLs: initTransactions -> TransactionalIdAuthorizationException", () -> {
            try (KafkaProducer<String, String> producer =
                     producer(userConfig, Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, prefix + "-tx"))) {
                expectFailure(TransactionalIdAuthorizationException.class, producer::initTransactions);
            }
        });

        try (Admin admin = Admin.create(as(adminConfig))) {
            List<AclBinding> grants = List.of(
                new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    new AccessControlEntry(principal, "*", AclOperation.WRITE, AclPermissionType.ALLOW)),
                new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                    new AccessControlEntry(principal, "*", AclOperation.READ, AclPermissionType.ALLOW)),
                new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry(principal, "*", AclOperation.IDEMPOTENT_WRITE, AclPermissionType.ALLOW)));
            admin.createAcls(grants).all().get();
        }
        check("with topic ACLs but none on the group: consume -> GroupAuthorizationException", () -> {
            Properties properties = as(userConfig);
            properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
            try (KafkaConsumer<String, String> consumer =
                     new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
                consumer.subscribe(List.of(topic));
                expectFailure(GroupAuthorizationException.class, () -> {
                    long deadline = System.currentTimeMillis() + 20_000;
                    while (System.currentTimeMillis() < deadline) {
                        consumer.poll(Duration.ofMillis(200));
                    }
                });
            }
        });
        check("with ACLs: idempotent produce, then consume in a group", () -> {
            try (Admin admin = Admin.create(as(adminConfig))) {
                admin.createAcls(List.of(new AclBinding(
                    new ResourcePattern(ResourceType.GROUP, group, PatternType.LITERAL),
                    new AccessControlEntry(principal, "*", AclOperation.READ, AclPermissionType.ALLOW)))).all().get();
            }
            try (KafkaProducer<String, String> producer =
                     producer(userConfig, Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true"))) {
                producer.send(new ProducerRecord<>(topic, "allowed")).get();
            }
            require(consumeOne(userConfig, topic, group).equals("allowed"), "read back");
        });

        check("a wrong password -> SaslAuthenticationException", () -> {
            Properties wrong = new Properties();
            wrong.putAll(userConfig);
            wrong.put(SaslConfigs.SASL_JAAS_CONFIG, jaas(user, "not-the-password", false));
            try (Admin admin = Admin.create(as(wrong))) {
                expectFailure(SaslAuthenticationException.class, () -> admin.listTopics().names().get());
            }
        });

    }

    private void tokenChecks() {
        check("delegation token: create, describe, renew, expire", () -> {
            try (Admin admin = Admin.create(as(adminConfig))) {
                DelegationToken token = createToken(admin);
                expireNow(admin, token);
                require(admin.describeDelegationToken().delegationTokens().get().stream()
                    .noneMatch(t -> t.tokenInfo().tokenId().equals(token.tokenInfo().tokenId())), "expired token gone");
            }
        });
    }

    private void tokenLoginCheck(String topic) {
        check("delegation token: log in with it over SCRAM (tokenauth), refused once expired", () -> {
            try (Admin admin = Admin.create(as(adminConfig))) {
                DelegationToken token = createToken(admin);
                Properties viaToken = new Properties();
                viaToken.putAll(adminConfig);
                viaToken.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
                viaToken.put(SaslConfigs.SASL_JAAS_CONFIG, jaas(token.tokenInfo().tokenId(),
                    Base64.getEncoder().encodeToString(token.hmac()), true));
                try (Admin tokenAdmin = Admin.create(as(viaToken))) {
                    // The token's owner is the super user admin: it sees every topic.
                    require(tokenAdmin.listTopics().names().get().contains(topic), "topics as the token's owner");
                }
                expireNow(admin, token);
                try (Admin tokenAdmin = Admin.create(as(viaToken))) {
                    expectFailure(SaslAuthenticationException.class, () -> tokenAdmin.listTopics().names().get());
                }
            }
        });
    }

    /** The user's password with each SASL mechanism the secure listener enables. */
    private void mechanismChecks(String topic) {
        String password = jaasOption(userConfig.getProperty(SaslConfigs.SASL_JAAS_CONFIG), "password");
        for (String mechanism : List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")) {
            check("log in with " + mechanism, () -> {
                Properties properties = new Properties();
                properties.putAll(userConfig);
                properties.put(SaslConfigs.SASL_MECHANISM, mechanism);
                String module = mechanism.equals("PLAIN")
                    ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                    : "org.apache.kafka.common.security.scram.ScramLoginModule";
                properties.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + user
                    + "\" password=\"" + password + "\";");
                try (Admin admin = Admin.create(as(properties))) {
                    // Logged in: metadata answers (ACLs decide which topics it shows).
                    require(admin.describeCluster().nodes().get().size() >= 1, "nodes");
                }
            });
        }
    }

    private static String jaasOption(String jaas, String name) {
        java.util.regex.Matcher found = java.util.regex.Pattern.compile(name + "=\"([^\"]*)\"").matcher(jaas);
        require(found.find(), "no " + name + " in " + jaas);
        return found.group(1);
    }

    /** With connections.max.reauth.ms set, the client re-authenticates on its live connections (KIP-368). */
    private void reauthenticationCheck(String topic) {
        check("a producer re-authenticates its connections as sessions end", () -> {
            try (KafkaProducer<String, String> producer = producer(adminConfig, Map.of())) {
                long until = System.currentTimeMillis() + Long.parseLong(options.getOrDefault("reauth-run-ms", "8000"));
                int sent = 0;
                while (System.currentTimeMillis() < until) {
                    producer.send(new ProducerRecord<>(topic, "reauth-" + sent)).get();
                    sent++;
                    Thread.sleep(200);
                }
                double succeeded = metric(producer.metrics(), "successful-reauthentication-total");
                double failed = metric(producer.metrics(), "failed-reauthentication-total");
                System.out.println("reauthentication: " + sent + " records, " + succeeded + " re-authentications, "
                    + failed + " failed");
                require(succeeded >= 1 && failed == 0, "re-authentications: " + succeeded + " ok, " + failed + " failed");
            }
        });
    }

    private static double metric(Map<org.apache.kafka.common.MetricName, ? extends org.apache.kafka.common.Metric> metrics,
                                 String name) {
        return metrics.entrySet().stream()
            .filter(entry -> entry.getKey().name().equals(name) && entry.getKey().group().equals("producer-metrics"))
            .mapToDouble(entry -> ((Number) entry.getValue().metricValue()).doubleValue()).sum();
    }

    private DelegationToken createToken(Admin admin) throws Exception {
        DelegationToken token = admin.createDelegationToken(new CreateDelegationTokenOptions()
            .renewers(List.of(new KafkaPrincipal("User", user)))).delegationToken().get();
        String id = token.tokenInfo().tokenId();
        List<DelegationToken> described = admin.describeDelegationToken().delegationTokens().get();
        require(described.stream().anyMatch(t -> t.tokenInfo().tokenId().equals(id)), "described " + described);
        long renewed = admin.renewDelegationToken(token.hmac()).expiryTimestamp().get();
        require(renewed >= token.tokenInfo().expiryTimestamp(), "renewed to " + renewed);
        return token;
    }

    private static void expireNow(Admin admin, DelegationToken token) throws Exception {
        admin.expireDelegationToken(token.hmac(), new ExpireDelegationTokenOptions().expiryTimePeriodMs(-1))
            .expiryTimestamp().get();
    }

    private static String jaas(String username, String password, boolean token) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + username
            + "\" password=\"" + password + "\"" + (token ? " tokenauth=\"true\"" : "") + ";";
    }

    private String consumeOne(Properties config, String topic, String group) {
        Properties properties = as(config);
        properties.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        properties.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer =
                 new KafkaConsumer<>(properties, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    return record.value();
                }
            }
        }
        throw new IllegalStateException("nothing consumed from " + topic);
    }
}
