def model(dbt, session):
    # A Python model on plain Spark: runs in-process through dbt_analyze's session method.
    from pyspark.sql import functions as F

    orders = dbt.ref("orders")
    return orders.select(
        "order_id",
        F.when(F.col("amount") >= 20, "large").otherwise("small").alias("size"),
    )
