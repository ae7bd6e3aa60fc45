import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.types.Struct;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * Kafka 2.5.1's own error response for each request read from stdin, one per line: "apiKey version kind hex", kind
 * "sasl" (IllegalSaslStateException, as SaslServerAuthenticator throws it) or "runtime" (a RuntimeException, as
 * KafkaApis.handleError meets it). Prints, per line, the hex of the response (header with correlation id 7, then
 * body) as getErrorResponse(0, exception) serializes it, or "ERROR <reason>".
 */
public class ErrorResponseOracle {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isEmpty()) continue;
            String[] parts = line.split(" ");
            try {
                ApiKeys api = ApiKeys.forId(Integer.parseInt(parts[0]));
                short version = Short.parseShort(parts[1]);
                Throwable error = parts[2].equals("sasl")
                    ? new IllegalSaslStateException("Unexpected Kafka request of type " + api + " during SASL authentication.")
                    : new RuntimeException("boom");
                byte[] body = parts.length > 3 ? hexToBytes(parts[3]) : new byte[0];
                Struct struct = api.parseRequest(version, ByteBuffer.wrap(body));
                AbstractRequest request = AbstractRequest.parseRequest(api, version, struct);
                AbstractResponse response = request.getErrorResponse(0, error);
                ByteBuffer buffer = response.serialize(api, version, 7);
                byte[] bytes = new byte[buffer.remaining()];
                buffer.get(bytes);
                out.append(toHex(bytes)).append('\n');
            } catch (Exception e) {
                out.append("ERROR ").append(e.toString().replace('\n', ' ')).append('\n');
            }
        }
        System.out.print(out);
    }

    private static byte[] hexToBytes(String hex) {
        byte[] bytes = new byte[hex.length() / 2];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        }
        return bytes;
    }

    private static String toHex(byte[] bytes) {
        StringBuilder hex = new StringBuilder();
        for (byte b : bytes) hex.append(String.format("%02x", b));
        return hex.toString();
    }
}
