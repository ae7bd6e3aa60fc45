"""The client properties files the tools take (--command-config, --admin.config, --producer.config,
--consumer.config, ...): read as the JVM would, their security settings (security.protocol, ssl.*, sasl.*) handed
to our client as its ``security=`` dict, with client.id and request.timeout.ms for the admin client."""

from kafka_zk.common.properties import read_properties
from kafka_zk.security.client_properties import split_security
from kafka_zk.tools.command_line import read_tool_file


def read_client_properties(path):
    """The properties file at ``path`` (None: no file, {}), failing as the JVM's file reading does."""
    if not path:
        return {}
    return read_tool_file(path, read_properties)


def security_options(props):
    """``{"security": {...}}`` for our clients' constructors when ``props`` holds security settings, else {}."""
    security = split_security(props)[1]
    return {"security": security} if security else {}


def admin_options(props, client_id=None, timeout=None):
    """AdminClient keyword arguments from Kafka admin client properties: client.id (else ``client_id``),
    request.timeout.ms (else ``timeout`` seconds) and the security settings."""
    options = security_options(props)
    chosen_id = props.get("client.id") or client_id
    if chosen_id:
        options["client_id"] = chosen_id
    if props.get("request.timeout.ms"):
        options["timeout"] = int(props["request.timeout.ms"]) / 1000.0
    elif timeout is not None:
        options["timeout"] = timeout
    return options


def read_admin_options(path, client_id=None, timeout=None):
    """admin_options of the file at ``path`` (None: only the defaults)."""
    return admin_options(read_client_properties(path), client_id, timeout)
