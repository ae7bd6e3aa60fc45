import java.io.InputStream;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;

/**
 * Runs one of Kafka's tools unchanged with the settings of a client properties file as the defaults of every
 * producer, consumer and admin client it makes: for tools that take no config file of their own (Kafka 2.5.1's
 * ClientCompatibilityTest builds its clients from --bootstrap-server alone), so that they reach a SASL_SSL listener.
 *
 * Usage: WithClientProperties PROPERTIES_FILE MAIN_CLASS [ARGS...]
 */
public final class WithClientProperties {
    private static final Class<?>[] CLIENT_CONFIGS = {
        ProducerConfig.class, ConsumerConfig.class, AdminClientConfig.class
    };

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: WithClientProperties PROPERTIES_FILE MAIN_CLASS [ARGS...]");
            System.exit(2);
        }
        Properties settings = new Properties();
        try (InputStream in = Files.newInputStream(Paths.get(args[0]))) {
            settings.load(in);
        }
        for (Class<?> clientConfig : CLIENT_CONFIGS) {
            setDefaults(clientConfig, settings);
        }
        String[] toolArgs = Arrays.copyOfRange(args, 2, args.length);
        Class.forName(args[1]).getMethod("main", String[].class).invoke(null, (Object) toolArgs);
    }

    /** Replaces the default of each setting the client config defines with the file's value, parsed by its type. */
    private static void setDefaults(Class<?> clientConfig, Properties settings) throws ReflectiveOperationException {
        Field field = clientConfig.getDeclaredField("CONFIG");
        field.setAccessible(true);
        Map<String, ConfigDef.ConfigKey> keys = ((ConfigDef) field.get(null)).configKeys();
        for (String name : settings.stringPropertyNames()) {
            ConfigDef.ConfigKey key = keys.get(name);
            if (key == null) {
                continue;
            }
            keys.put(name, new ConfigDef.ConfigKey(key.name, key.type, settings.getProperty(name), key.validator,
                key.importance, key.documentation, key.group, key.orderInGroup, key.width, key.displayName,
                key.dependents, key.recommender, key.internalConfig));
        }
    }
}
