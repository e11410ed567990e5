def model(dbt, session):
    # A user's Python model that returns a pandas DataFrame, as dbt's docs show them: dbt-spark's
    # materialization turns it into a Spark DataFrame (pandas and pyarrow come with the library).
    orders = dbt.ref("orders").toPandas()
    orders["amount"] = orders["amount"].astype(float)
    return orders.groupby("status", as_index=False).agg(orders=("order_id", "count"), amount=("amount", "sum"))
