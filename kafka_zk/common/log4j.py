"""Kafka's log4j.properties as Python logging: the subset Kafka's config file uses, read and applied.

Appenders (ConsoleAppender, DailyRollingFileAppender, FileAppender) with a PatternLayout (%d %p %m %c %n %t %X %L
%F %%, with widths such as %-5p), logger levels and appenders, additivity, and ``${name}`` substitution from the
system properties (``-Dkafka.logs.dir=...``). Kafka's logger names apply to our packages: ``kafka`` is
``kafka_zk``, ``kafka.controller`` is ``kafka_zk.controller``, ``kafka.log.LogCleaner`` the cleaner's modules;
``state.change.logger``, ``kafka.request.logger`` and ``kafka.authorizer.logger`` are loggers of those names.
"""

import logging
import os
import re
import shlex
import time

from kafka_zk.common.properties import parse_properties

TRACE = 5
LEVELS = {
    "OFF": logging.CRITICAL + 10,
    "FATAL": logging.CRITICAL,
    "ERROR": logging.ERROR,
    "WARN": logging.WARNING,
    "INFO": logging.INFO,
    "DEBUG": logging.DEBUG,
    "TRACE": TRACE,
    "ALL": 1,
}
_NAMES_DESCENDING = sorted(LEVELS.items(), key=lambda item: -item[1])
ROOT = "root"
STATE_CHANGE_LOGGER = "state.change.logger"
REQUEST_LOGGER = "kafka.request.logger"
AUTHORIZER_LOGGER = "kafka.authorizer.logger"
LITERAL_LOGGERS = (STATE_CHANGE_LOGGER, REQUEST_LOGGER, AUTHORIZER_LOGGER)
# Kafka's logger names (classes and packages) -> the Python loggers that do their work here.
KAFKA_TO_PYTHON = {
    "kafka": ("kafka_zk",),
    "kafka.controller": ("kafka_zk.controller",),
    "kafka.log.LogCleaner": (
        "kafka_zk.log.cleaner",
        "kafka_zk.log.cleaner_transactions",
        "kafka_zk.server.log_cleaner_service",
    ),
    "kafka.network.RequestChannel$": (),
    "org.apache.zookeeper": ("kazoo",),
    "org.I0Itec.zkclient.ZkClient": (),
    "org.apache.kafka": (),
}
DEFAULT_PATTERN = "%m%n"
ISO8601 = "yyyy-MM-dd HH:mm:ss,SSS"


class Log4jError(ValueError):
    pass


def level_name(levelno):
    """The log4j name of a Python level (WARNING is WARN, CRITICAL is FATAL, 5 is TRACE)."""
    name = _LEVEL_NAMES.get(levelno)
    if name is None:
        name = next((name for name, value in _NAMES_DESCENDING if levelno >= value), "ALL")
        _LEVEL_NAMES[levelno] = name
    return name


_LEVEL_NAMES = {}


def python_level(name):
    try:
        return LEVELS[name.strip().upper()]
    except KeyError:
        raise Log4jError("unknown log4j level %r" % name)


def python_logger_names(log4j_name):
    """The Python loggers a log4j logger name configures."""
    if log4j_name in LITERAL_LOGGERS:
        return (log4j_name,)
    if log4j_name in KAFKA_TO_PYTHON:
        return KAFKA_TO_PYTHON[log4j_name]
    if log4j_name.startswith("kafka."):
        return ("kafka_zk." + log4j_name[len("kafka.") :],)
    return (log4j_name,)


# ---------------------------------------------------------------------------------------------------- the file


class Appender:
    """One log4j appender: ``kind`` is "console" or "file"; ``file`` its path (files); ``date_pattern`` the
    DailyRollingFileAppender's roll-over suffix (None: never rolls); ``pattern`` its PatternLayout."""

    def __init__(self, name, kind, file=None, date_pattern=None, pattern=DEFAULT_PATTERN, target="System.out"):
        self.name = name
        self.kind = kind
        self.file = file
        self.date_pattern = date_pattern
        self.pattern = pattern
        self.target = target

    def __repr__(self):
        return "Appender(%s, %s, %s)" % (self.name, self.kind, self.file)


class LoggerSetting:
    """A logger's level (None: inherited), its appenders' names, and whether it also writes to its parents'."""

    def __init__(self, name, level=None, appenders=(), additive=True):
        self.name = name
        self.level = level
        self.appenders = list(appenders)
        self.additive = additive

    def __repr__(self):
        return "LoggerSetting(%s, %s, %s, additive=%s)" % (self.name, self.level, self.appenders, self.additive)


class Log4jConfig:
    def __init__(self, root, loggers, appenders):
        self.root = root
        self.loggers = loggers  # {log4j name: LoggerSetting}, in file order
        self.appenders = appenders  # {name: Appender}


_APPENDER_KINDS = {
    "org.apache.log4j.ConsoleAppender": "console",
    "org.apache.log4j.DailyRollingFileAppender": "file",
    "org.apache.log4j.FileAppender": "file",
    "org.apache.log4j.RollingFileAppender": "file",
}
_VARIABLE = re.compile(r"\$\{([^}]*)\}")


def substitute(value, system_properties):
    """log4j's ${name} substitution from the system properties (an unknown name becomes "")."""
    return _VARIABLE.sub(lambda match: system_properties.get(match.group(1), ""), value)


def _level_and_appenders(value):
    parts = [part.strip() for part in value.split(",")]
    level = python_level(parts[0]) if parts[0] and parts[0].upper() != "INHERITED" else None
    return level, [part for part in parts[1:] if part]


def parse(text, system_properties=None):
    """A Log4jConfig from log4j.properties text; ``system_properties`` fill ${...} references."""
    props = {key: substitute(value, system_properties or {}) for key, value in parse_properties(text).items()}
    appenders = {}
    for key, value in props.items():
        match = re.fullmatch(r"log4j\.appender\.([^.]+)", key)
        if match:
            kind = _APPENDER_KINDS.get(value.strip())
            if kind is None:
                raise Log4jError("unsupported appender class %s of appender %s" % (value, match.group(1)))
            name = match.group(1)
            prefix = "log4j.appender.%s." % name
            appender = Appender(
                name,
                kind,
                file=props.get(prefix + "File"),
                date_pattern=props.get(prefix + "DatePattern") if "Daily" in value else None,
                pattern=props.get(prefix + "layout.ConversionPattern", DEFAULT_PATTERN),
                target=props.get(prefix + "Target", "System.out"),
            )
            if kind == "file" and not appender.file:
                raise Log4jError("appender %s names no File" % name)
            appenders[name] = appender
    root_level, root_appenders = _level_and_appenders(props.get("log4j.rootLogger", "DEBUG"))
    root = LoggerSetting(ROOT, root_level, root_appenders)
    loggers = {}
    for key, value in props.items():
        if key.startswith("log4j.logger."):
            name = key[len("log4j.logger.") :]
            level, names = _level_and_appenders(value)
            loggers[name] = LoggerSetting(name, level, names)
    for key, value in props.items():
        if key.startswith("log4j.additivity."):
            name = key[len("log4j.additivity.") :]
            loggers.setdefault(name, LoggerSetting(name)).additive = value.strip().lower() != "false"
    for setting in [root] + list(loggers.values()):
        for name in setting.appenders:
            if name not in appenders:
                raise Log4jError("logger %s names appender %s, which is not defined" % (setting.name, name))
    return Log4jConfig(root, loggers, appenders)


def system_properties(environ, default_logs_dir):
    """(log4j.configuration path or None, {system property: value}) as Kafka's kafka-run-class.sh sets them:
    kafka.logs.dir from $LOG_DIR (default ``default_logs_dir``), then the -D options of $KAFKA_LOG4J_OPTS."""
    found = {"kafka.logs.dir": environ.get("LOG_DIR") or str(default_logs_dir)}
    for word in shlex.split(environ.get("KAFKA_LOG4J_OPTS", "")):
        if word.startswith("-D") and "=" in word:
            key, _, value = word[2:].partition("=")
            found[key] = value
    configuration = found.get("log4j.configuration")
    if configuration and configuration.startswith("file:"):
        configuration = configuration[len("file:") :]
    return configuration or None, found


# ---------------------------------------------------------------------------------------------------- layout


def strftime_pattern(java_pattern):
    """A Java SimpleDateFormat pattern (the subset log4j files use) as a strftime format; "SSS" becomes "{ms}"."""
    out, index = [], 0
    fields = [
        ("yyyy", "%Y"),
        ("yy", "%y"),
        ("MM", "%m"),
        ("dd", "%d"),
        ("HH", "%H"),
        ("mm", "%M"),
        ("ss", "%S"),
        ("SSS", "{ms}"),
        ("a", "%p"),
        ("EEE", "%a"),
        ("MMM", "%b"),
    ]
    fields.sort(key=lambda item: -len(item[0]))
    while index < len(java_pattern):
        char = java_pattern[index]
        if char == "'":
            end = java_pattern.find("'", index + 1)
            end = len(java_pattern) if end < 0 else end
            out.append(java_pattern[index + 1 : end].replace("%", "%%") or "'")
            index = end + 1
            continue
        for field, code in fields:
            if java_pattern.startswith(field, index):
                out.append(code)
                index += len(field)
                break
        else:
            out.append("%%" if char == "%" else char)
            index += 1
    return "".join(out)


_CONVERSION = re.compile(r"%(-?\d*)(?:\.(\d+))?([a-zA-Z%])(?:\{([^}]*)\})?")


class PatternFormatter(logging.Formatter):
    """log4j's PatternLayout: ``[%d] %p %m (%c)%n`` gives ``[2026-11-26 16:00:00,123] INFO started (name)``."""

    def __init__(self, pattern):
        super().__init__()
        self.pattern = pattern
        parts = self._compile(pattern)
        # one %-format of the literal text, and a getter per conversion
        self._format = "".join(part.replace("%", "%%") if part.__class__ is str else "%s" for part in parts)
        self._getters = [part for part in parts if part.__class__ is not str]
        self._date_cache = {}

    def _compile(self, pattern):
        parts, last = [], 0
        for match in _CONVERSION.finditer(pattern):
            if match.start() > last:
                parts.append(pattern[last : match.start()])
            width, precision, char, option = match.groups()
            parts.append(self._converter(char, option, width, precision))
            last = match.end()
        if last < len(pattern):
            parts.append(pattern[last:])
        return parts

    def _converter(self, char, option, width, precision):
        if char == "%":
            return "%"
        if char == "n":
            return "\n"
        if char == "d":
            date_format = strftime_pattern(
                {None: ISO8601, "ISO8601": ISO8601, "ABSOLUTE": "HH:mm:ss,SSS", "DATE": "dd MMM yyyy HH:mm:ss,SSS"}.get(
                    option, option
                )
            )
            get = lambda record: self._date(record, date_format)  # noqa: E731
        elif char == "p":
            get = lambda record: level_name(record.levelno)  # noqa: E731
        elif char == "m":
            get = lambda record: record.message  # noqa: E731
        elif char in "cC":
            keep = int(option) if option and option.isdigit() else None
            get = (
                (lambda record: ".".join(record.name.split(".")[-keep:]))
                if keep  # noqa: E731
                else (lambda record: record.name)
            )
        elif char == "t":
            get = lambda record: record.threadName  # noqa: E731
        elif char == "X":
            get = lambda record: str(getattr(record, option or "", "") or "")  # noqa: E731
        elif char == "L":
            get = lambda record: str(record.lineno)  # noqa: E731
        elif char == "F":
            get = lambda record: record.filename  # noqa: E731
        elif char == "r":
            get = lambda record: "%d" % record.relativeCreated  # noqa: E731
        else:
            raise Log4jError("unsupported conversion %%%s in pattern %r" % (char, self.pattern))
        if not width and not precision:
            return get
        size = int(width) if width and width != "-" else 0
        cut = int(precision) if precision else None

        def sized(record):
            text = get(record)
            if cut is not None and len(text) > cut:
                text = text[-cut:]
            return text.ljust(-size) if size < 0 else text.rjust(size)

        return sized

    def _date(self, record, date_format):
        seconds = int(record.created)
        cached = self._date_cache.get(date_format)
        if cached is None or cached[0] != seconds:
            moment = time.localtime(seconds)
            cached = (seconds, [time.strftime(piece, moment) if piece else "" for piece in date_format.split("{ms}")])
            self._date_cache[date_format] = cached
        return ("%03d" % min(999, int((record.created - seconds) * 1000 + 1e-3))).join(cached[1])

    def format(self, record):
        record.message = record.getMessage()
        text = self._format % tuple([get(record) for get in self._getters])
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:  # log4j's appenders print the throwable after the layout's line
            text += record.exc_text + ("\n" if not record.exc_text.endswith("\n") else "")
        if record.stack_info:
            text += self.formatStack(record.stack_info) + "\n"
        return text


# ---------------------------------------------------------------------------------------------------- appenders


class DailyRollingFileHandler(logging.FileHandler):
    """log4j's DailyRollingFileAppender: at the first line of a new period (DatePattern '.'yyyy-MM-dd-HH: each
    hour) the file is renamed with the previous period's suffix (server.log.2026-11-26-15) and started anew."""

    def __init__(self, path, date_pattern):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        super().__init__(path, mode="a", encoding="utf-8")
        self.terminator = ""
        self.suffix_format = strftime_pattern(date_pattern).replace("{ms}", "000") if date_pattern else None
        self._period = None
        self._second = None
        if self.suffix_format:  # the period of the file's last write (just now, for a new file), as log4j does
            self._period = time.strftime(self.suffix_format, time.localtime(os.stat(path).st_mtime))

    def emit(self, record):
        if self.suffix_format and int(record.created) != self._second:
            self._second = int(record.created)
            period = time.strftime(self.suffix_format, time.localtime(record.created))
            if period != self._period:
                self._roll(period)
        super().emit(record)

    def _roll(self, period):
        previous, self._period = self._period, period
        self.acquire()
        try:
            if self.stream is not None:
                self.stream.close()
                self.stream = None
            target = self.baseFilename + previous
            if os.path.exists(self.baseFilename) and not os.path.exists(target):
                os.replace(self.baseFilename, target)
        finally:
            self.release()


def _same_file(path, stream):
    try:
        return os.path.samestat(os.stat(path), os.fstat(stream.fileno()))
    except (OSError, AttributeError, ValueError):
        return False


class _ConsoleHandler(logging.StreamHandler):
    def __init__(self, stream):
        super().__init__(stream)
        self.terminator = ""


def configure(config, stdout, stderr=None, managed=None):
    """Apply ``config`` to Python logging: handlers on the root and the named loggers, levels, propagation.

    A file appender whose file is where ``stdout`` already goes (a local cluster redirects a broker's output
    into its server.log) shares the console's handler, so each line is written once. Like log4j, it opens the
    file of every appender a logger names: kafka-request.log exists (empty) while its logger is at WARN.
    ``managed`` lists further Python loggers reset to inherit (so a second configure starts clean). Returns
    {appender name: handler}."""
    handlers = {}

    def console(stream, pattern):
        key = ("console", id(stream))
        if key not in handlers:
            handlers[key] = _ConsoleHandler(stream)
            handlers[key].setFormatter(PatternFormatter(pattern))
        return handlers[key]

    def handler_of(name):
        if name in handlers:
            return handlers[name]
        appender = config.appenders[name]
        if appender.kind == "console":
            stream = stderr if appender.target == "System.err" and stderr is not None else stdout
            handler = console(stream, appender.pattern)
        elif _same_file(appender.file, stdout):
            handler = console(stdout, appender.pattern)
        else:
            handler = DailyRollingFileHandler(appender.file, appender.date_pattern)
            handler.setFormatter(PatternFormatter(appender.pattern))
        handlers[name] = handler
        return handler

    logging.addLevelName(TRACE, "TRACE")
    _record_only_what_patterns_print(config)
    root = logging.getLogger()
    _reset(root)
    for name in managed or ():
        _reset(logging.getLogger(name))
    root.setLevel(config.root.level if config.root.level is not None else logging.DEBUG)
    for name in config.root.appenders:
        root.addHandler(handler_of(name))
    for setting in config.loggers.values():
        for python_name in python_logger_names(setting.name):
            logger = logging.getLogger(python_name)
            _reset(logger)
            if setting.level is not None:
                logger.setLevel(setting.level)
            logger.propagate = setting.additive
            for name in setting.appenders:
                logger.addHandler(handler_of(name))
    return {name: handler for name, handler in handlers.items() if isinstance(name, str)}


def _record_only_what_patterns_print(config):
    """A log record costs less without the caller's frame (%L %F), the thread (%t) and the process: Python's
    logging finds them for every record unless told not to (its documented optimization flags)."""
    patterns = "".join(appender.pattern for appender in config.appenders.values())
    conversions = {match.group(3) for match in _CONVERSION.finditer(patterns)}
    if not conversions & set("LF"):
        logging._srcfile = None
    logging.logThreads = "t" in conversions
    logging.logProcesses = False
    logging.logMultiprocessing = False


def _reset(logger):
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
        if isinstance(handler, logging.FileHandler):
            handler.close()
    logger.setLevel(logging.NOTSET)
    logger.propagate = True
