"""Broker loggers as a config resource (Kafka's BROKER_LOGGER, type 8): describe and set levels at runtime."""

import logging

from kafka_zk.protocol.errors import Errors

ROOT = "root"
LOG4J_LEVELS = ("OFF", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE", "ALL")
_TO_PYTHON = {
    "OFF": logging.CRITICAL + 10,
    "FATAL": logging.CRITICAL,
    "ERROR": logging.ERROR,
    "WARN": logging.WARNING,
    "INFO": logging.INFO,
    "DEBUG": logging.DEBUG,
    "TRACE": 5,
    "ALL": 1,
}
SET, DELETE = 0, 1
PREFIX = "kafka_zk"
# Kafka's loggers named for what they log, not for a class: config/log4j.properties gives each its own file.
NAMED_LOGGERS = ("state.change.logger", "kafka.request.logger", "kafka.authorizer.logger")


def _log4j_level(level):
    for name, value in sorted(_TO_PYTHON.items(), key=lambda item: -item[1]):
        if level >= value:
            return name
    return "ALL"


def _logger(name):
    return logging.getLogger() if name == ROOT else logging.getLogger(name)


def logger_levels():
    """{logger name: effective log4j level} of the root logger, every kafka_zk logger and Kafka's named ones."""
    names = sorted(
        set(name for name in logging.root.manager.loggerDict if name.startswith(PREFIX)) | set(NAMED_LOGGERS)
    )
    levels = {ROOT: _log4j_level(logging.getLogger().getEffectiveLevel())}
    levels.update({name: _log4j_level(logging.getLogger(name).getEffectiveLevel()) for name in names})
    return levels


def alter_logger_levels(entries, validate_only):
    """IncrementalAlterConfigs entries for this broker's loggers; returns (error code, message)."""
    known = set(logger_levels())
    for entry in entries:
        name, operation, value = entry["name"], entry["config_operation"], entry["value"]
        if operation not in (SET, DELETE):
            return (
                Errors.INVALID_REQUEST,
                "%s operation is not allowed for the %s resource"
                % ({2: "APPEND", 3: "SUBTRACT"}.get(operation, str(operation)), "BROKER_LOGGER"),
            )
        if name not in known:
            return (Errors.INVALID_CONFIG, "Logger %s does not exist!" % name)
        if operation == SET and value not in LOG4J_LEVELS:
            return (
                Errors.INVALID_CONFIG,
                "Cannot set the log level of %s to %s as it is not a supported log level. "
                "Valid log4j levels are %s" % (name, value, ", ".join(LOG4J_LEVELS)),
            )
        if operation == DELETE and name == ROOT:
            return (Errors.INVALID_REQUEST, "Removing the log level of the root logger is not allowed")
    if not validate_only:
        for entry in entries:
            logger = _logger(entry["name"])
            logger.setLevel(_TO_PYTHON[entry["value"]] if entry["config_operation"] == SET else logging.NOTSET)
    return (Errors.NONE, None)
