"""PySpark jobs over kafka-zk topics, each runnable as `python -m spark_jobs.<name> --help`."""
