"""The SQL path over a real Spark Thrift Server (dbt-spark `method: thrift`), started from the
jars that ship with pyspark on loopback, with a metastore of its own. Unlike dbt-spark's session
mode, the server runs with Spark 4's defaults (ANSI mode on)."""

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from conftest import PROJECT, dbt_process

THRIFT_HOME = PROJECT.parent / ".spark" / "thrift"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def thrift_port():
    import pyspark

    shutil.rmtree(THRIFT_HOME, ignore_errors=True)
    THRIFT_HOME.mkdir(parents=True)
    port = free_port()
    spark_home = Path(pyspark.__file__).parent
    command = [
        str(spark_home / "bin" / "spark-submit"), "--master", "local[2]",
        "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
        "--conf", "spark.ui.enabled=false", "--conf", "spark.sql.shuffle.partitions=4",
        "--conf", f"spark.sql.warehouse.dir={THRIFT_HOME}/spark-warehouse",
        "--conf", f"spark.hadoop.javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName={THRIFT_HOME}/metastore_db;create=true",
        "--conf", f"spark.driver.extraJavaOptions=-Dderby.system.home={THRIFT_HOME}",
        "--hiveconf", f"hive.server2.thrift.port={port}", "--hiveconf", "hive.server2.thrift.bind.host=127.0.0.1",
        "spark-internal",
    ]
    log = open(THRIFT_HOME / "server.log", "w")
    server = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "SPARK_HOME": str(spark_home)},
                              start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        assert server.poll() is None, (THRIFT_HOME / "server.log").read_text()[-3000:]
        time.sleep(1)
    else:
        pytest.fail("the Thrift server did not listen within 120 s")
    yield port
    os.killpg(server.pid, 15)
    server.wait(timeout=60)


def dbt(port, *args):
    return dbt_process({"DBT_ANALYZE_THRIFT_PORT": str(port)}, *args, "--target", "thrift")


def test_analyze_over_thrift(thrift_port):
    assert dbt(thrift_port, "deps")[0] == 0
    for sql in ["create database if not exists analytics",
                "create table analytics.over_thrift (v bigint, s string, b boolean, d double, p int) using parquet partitioned by (p)",
                "insert into analytics.over_thrift values (1, 'a', true, 1.5, 1), (2, null, false, null, 1), (3, 'ccc', null, cast('NaN' as double), 2)"]:
        code, output = dbt(thrift_port, "run-operation", "run_sql", "--args", json.dumps({"sql": sql}))
        assert code == 0, output

    code, output = dbt(thrift_port, "run-operation", "analyze_table", "--args",
                       json.dumps({"statement": "ANALYZE TABLE analytics.over_thrift COMPUTE STATISTICS FOR ALL COLUMNS"}))
    assert code == 0, output[-5000:]
    assert "scanning analytics.over_thrift: 2 of 2 partition(s), 4 column(s)" in output
    assert "table: rows 3" in output

    code, output = dbt(thrift_port, "run-operation", "print_current_statistics", "--args", "{schema: analytics, table: over_thrift}")
    assert code == 0, output[-5000:]
    current = json.loads(output.split("CURRENT:", 1)[1].splitlines()[0])
    columns = {r["column_name"]: r for r in current["column_statistics"] if r["partition_spec"] == ""}
    assert columns["s"]["null_count"] == "1" and columns["s"]["max_value"] == "ccc"
    assert columns["d"]["max_value"] == "NaN" and columns["b"]["true_count"] == "1"

    code, output = dbt(thrift_port, "run-operation", "analyze_table", "--args", "{relation: analytics.over_thrift, columns: all}")
    assert code == 0 and "unchanged since its last analysis" in output, output[-3000:]


def test_publish_over_thrift_publishes_the_size_and_says_what_it_left_out(thrift_port):
    code, output = dbt(thrift_port, "run-operation", "analyze_table", "--args",
                       "{relation: analytics.over_thrift, columns: all, publish: true}")
    assert code == 0, output[-3000:]
    assert "only the size was published to the Spark catalog (not a session connection)" in output
