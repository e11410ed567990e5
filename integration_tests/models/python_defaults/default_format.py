def model(dbt, session):
    # A user's Python model that sets nothing: no submission method, no file format (this folder
    # has no +file_format). On plain Spark it runs in-process and is written as parquet.
    return session.range(5).withColumnRenamed("id", "n")
