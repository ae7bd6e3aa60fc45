"""Kafka 2.5 error codes (name, code, retriable flag, short text) and the KafkaError exception."""

from enum import IntEnum


class Errors(IntEnum):
    """Every error code a Kafka 2.5 broker can return. Members compare equal to their codes."""

    retriable: bool
    message: str

    def __new__(cls, code: int, retriable: bool, message: str) -> "Errors":
        member = int.__new__(cls, code)
        member._value_ = code
        member.retriable = retriable
        member.message = message
        return member

    UNKNOWN_SERVER_ERROR = (-1, False, "The broker hit an unexpected error.")
    NONE = (0, False, "")
    OFFSET_OUT_OF_RANGE = (1, False, "The requested offset is outside the partition's log.")
    CORRUPT_MESSAGE = (2, True, "A record failed its CRC check, size check or is otherwise malformed.")
    UNKNOWN_TOPIC_OR_PARTITION = (3, True, "This broker does not host that topic-partition.")
    INVALID_FETCH_SIZE = (4, False, "The requested fetch size is invalid.")
    LEADER_NOT_AVAILABLE = (5, True, "The partition has no leader right now (election in progress).")
    NOT_LEADER_FOR_PARTITION = (6, True, "This broker is not the leader of that partition.")
    REQUEST_TIMED_OUT = (7, True, "The request did not complete within its timeout.")
    BROKER_NOT_AVAILABLE = (8, False, "The broker is not available.")
    REPLICA_NOT_AVAILABLE = (9, True, "The replica is not available for that partition.")
    MESSAGE_TOO_LARGE = (10, False, "The request holds a message larger than the broker accepts.")
    STALE_CONTROLLER_EPOCH = (11, False, "The request came from a controller with an older epoch.")
    OFFSET_METADATA_TOO_LARGE = (12, False, "The metadata attached to the offset commit is too large.")
    NETWORK_EXCEPTION = (13, True, "The connection was lost before the response arrived.")
    COORDINATOR_LOAD_IN_PROGRESS = (14, True, "The coordinator is still loading its state.")
    COORDINATOR_NOT_AVAILABLE = (15, True, "The coordinator is not available.")
    NOT_COORDINATOR = (16, True, "This broker is not the coordinator for that group or transaction.")
    INVALID_TOPIC_EXCEPTION = (17, False, "The topic name is invalid or the topic is internal.")
    RECORD_LIST_TOO_LARGE = (18, False, "The record batch is larger than the segment size.")
    NOT_ENOUGH_REPLICAS = (19, True, "Fewer in-sync replicas than min.insync.replicas.")
    NOT_ENOUGH_REPLICAS_AFTER_APPEND = (20, True, "Written, but fewer in-sync replicas than required.")
    INVALID_REQUIRED_ACKS = (21, False, "The acks value is not 0, 1 or -1.")
    ILLEGAL_GENERATION = (22, False, "The generation id is not the group's current one.")
    INCONSISTENT_GROUP_PROTOCOL = (23, False, "The member's protocols do not match the group's.")
    INVALID_GROUP_ID = (24, False, "The group id is empty or invalid.")
    UNKNOWN_MEMBER_ID = (25, False, "The coordinator does not know this member id.")
    INVALID_SESSION_TIMEOUT = (26, False, "The session timeout is outside the broker's allowed range.")
    REBALANCE_IN_PROGRESS = (27, False, "The group is rebalancing; rejoin it.")
    INVALID_COMMIT_OFFSET_SIZE = (28, False, "The offset commit was rejected because of its size.")
    TOPIC_AUTHORIZATION_FAILED = (29, False, "Not authorized to access the topic.")
    GROUP_AUTHORIZATION_FAILED = (30, False, "Group authorization failed.")
    CLUSTER_AUTHORIZATION_FAILED = (31, False, "Not authorized for this cluster operation.")
    INVALID_TIMESTAMP = (32, False, "The record timestamp is outside the accepted range.")
    UNSUPPORTED_SASL_MECHANISM = (33, False, "The broker does not offer that SASL mechanism.")
    ILLEGAL_SASL_STATE = (34, False, "The request is not valid in the current SASL state.")
    UNSUPPORTED_VERSION = (35, False, "The broker does not support this request version.")
    TOPIC_ALREADY_EXISTS = (36, False, "The topic already exists.")
    INVALID_PARTITIONS = (37, False, "The number of partitions is invalid.")
    INVALID_REPLICATION_FACTOR = (38, False, "The replication factor is invalid.")
    INVALID_REPLICA_ASSIGNMENT = (39, False, "The replica assignment is invalid.")
    INVALID_CONFIG = (40, False, "The configuration is invalid.")
    NOT_CONTROLLER = (41, True, "This is not the correct controller for this cluster.")
    INVALID_REQUEST = (42, False, "The request is malformed or not valid for this broker.")
    UNSUPPORTED_FOR_MESSAGE_FORMAT = (43, False, "The topic's message format version does not allow this.")
    POLICY_VIOLATION = (44, False, "The request breaks a configured policy.")
    OUT_OF_ORDER_SEQUENCE_NUMBER = (45, False, "The broker saw a gap in the producer's sequence numbers.")
    DUPLICATE_SEQUENCE_NUMBER = (46, False, "The broker already has a batch with this sequence number.")
    INVALID_PRODUCER_EPOCH = (47, False, "The producer epoch is older than the current one (fenced).")
    INVALID_TXN_STATE = (48, False, "The operation is not valid in the transaction's state.")
    INVALID_PRODUCER_ID_MAPPING = (49, False, "The producer id does not match the transactional id.")
    INVALID_TRANSACTION_TIMEOUT = (50, False, "The transaction timeout exceeds the broker maximum.")
    CONCURRENT_TRANSACTIONS = (51, True, "Another transaction for this producer is still completing.")
    TRANSACTION_COORDINATOR_FENCED = (52, False, "A newer transaction coordinator has taken over.")
    TRANSACTIONAL_ID_AUTHORIZATION_FAILED = (53, False, "Transactional Id authorization failed.")
    SECURITY_DISABLED = (54, False, "Security features are disabled.")
    OPERATION_NOT_ATTEMPTED = (55, False, "The broker did not attempt this operation.")
    KAFKA_STORAGE_ERROR = (56, True, "The replica's log directory is offline.")
    LOG_DIR_NOT_FOUND = (57, False, "The requested log directory does not exist.")
    SASL_AUTHENTICATION_FAILED = (58, False, "SASL authentication failed.")
    UNKNOWN_PRODUCER_ID = (59, False, "The broker has no state for this producer id.")
    REASSIGNMENT_IN_PROGRESS = (60, False, "A partition reassignment is in progress.")
    DELEGATION_TOKEN_AUTH_DISABLED = (61, False, "Delegation token authentication is disabled.")
    DELEGATION_TOKEN_NOT_FOUND = (62, False, "No such delegation token.")
    DELEGATION_TOKEN_OWNER_MISMATCH = (63, False, "The principal does not own or renew this token.")
    DELEGATION_TOKEN_REQUEST_NOT_ALLOWED = (64, False, "Delegation token requests are not allowed on this channel.")
    DELEGATION_TOKEN_AUTHORIZATION_FAILED = (65, False, "Not authorized for the delegation token.")
    DELEGATION_TOKEN_EXPIRED = (66, False, "The delegation token has expired.")
    INVALID_PRINCIPAL_TYPE = (67, False, "The principal type is not supported.")
    NON_EMPTY_GROUP = (68, False, "The group still has members.")
    GROUP_ID_NOT_FOUND = (69, False, "The group does not exist.")
    FETCH_SESSION_ID_NOT_FOUND = (70, True, "The fetch session id is unknown.")
    INVALID_FETCH_SESSION_EPOCH = (71, True, "The fetch session epoch is not the expected one.")
    LISTENER_NOT_FOUND = (72, True, "The leader has no endpoint for the listener the request came on.")
    TOPIC_DELETION_DISABLED = (73, False, "Topic deletion is disabled.")
    FENCED_LEADER_EPOCH = (74, True, "The leader epoch in the request is older than the broker's.")
    UNKNOWN_LEADER_EPOCH = (75, True, "The leader epoch in the request is newer than the broker's.")
    UNSUPPORTED_COMPRESSION_TYPE = (76, False, "The requester cannot handle the compression type used.")
    STALE_BROKER_EPOCH = (77, False, "The broker epoch in the request is out of date.")
    OFFSET_NOT_AVAILABLE = (78, True, "The leader's high watermark has not caught up yet.")
    MEMBER_ID_REQUIRED = (79, False, "The member must rejoin with the member id the coordinator assigned.")
    PREFERRED_LEADER_NOT_AVAILABLE = (80, True, "The preferred leader is not available.")
    GROUP_MAX_SIZE_REACHED = (81, False, "The group has reached its maximum size.")
    FENCED_INSTANCE_ID = (82, False, "Another member with this group.instance.id has replaced this one.")
    ELIGIBLE_LEADERS_NOT_AVAILABLE = (83, True, "No replica is eligible to become leader.")
    ELECTION_NOT_NEEDED = (84, True, "The election would not change the leader.")
    NO_REASSIGNMENT_IN_PROGRESS = (85, False, "No reassignment is in progress for the partition.")
    GROUP_SUBSCRIBED_TO_TOPIC = (86, False, "The group is subscribed to the topic, so its offsets stay.")
    INVALID_RECORD = (87, False, "A record failed broker-side validation.")
    UNSTABLE_OFFSET_COMMIT = (88, True, "The group has pending transactional offset commits.")

    @classmethod
    def from_code(cls, code: int) -> "Errors":
        """The member for ``code``; codes this table does not know map to UNKNOWN_SERVER_ERROR."""
        try:
            return cls(code)  # type: ignore[call-arg]  # a lookup by value, which never reaches __new__
        except ValueError:
            return cls.UNKNOWN_SERVER_ERROR


# Errors.NONE for the request paths, which read it per partition: a member read as Errors.X goes through the slot
# of EnumType.__getattr__ (about 1,100 instructions on CPython 3.11, compiled or not); a module global costs next to
# nothing.
NO_ERROR = Errors.NONE


class KafkaError(Exception):
    """An error a request handler answers with: ``raise KafkaError(Errors.X, "details")``."""

    def __init__(self, error: "Errors | int", message: str | None = None) -> None:
        self.error = error if isinstance(error, Errors) else Errors.from_code(int(error))
        self.message = message if message is not None else self.error.message
        super().__init__("%s (%d): %s" % (self.error.name, self.error.value, self.message))

    @property
    def code(self) -> int:
        return self.error.value

    @property
    def retriable(self) -> bool:
        return self.error.retriable
