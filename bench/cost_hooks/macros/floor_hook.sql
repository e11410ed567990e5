{#- The least post-hook that keeps mergeable statistics in a table (bench/spark_floor.py's least
    run, sent through dbt): the model's columns (a DESCRIBE), a started mark written and read back,
    and one INSERT of the scan's aggregate of every column, exact measures and the sketches at a
    run's sizes. With scan_only, the aggregate's SELECT alone, its rows fetched: no write at all. No merge, no arrays,
    no events after: a floor under any design, not a statistics run. -#}
{% macro floor_hook(scan_only=false) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set measures = ['count(1)'] -%}
  {%- for column in adapter.get_columns_in_relation(this) -%}
    {%- set name, data_type = adapter.quote(column.name), column.dtype | lower -%}
    {%- do measures.extend(['count(' ~ name ~ ')', 'min(' ~ name ~ ')', 'max(' ~ name ~ ')']) -%}
    {%- if data_type == 'string' -%}
      {%- do measures.extend(['sum(length(' ~ name ~ '))', 'max(length(' ~ name ~ '))',
                              'hll_sketch_agg(' ~ name ~ ', 14)', 'approx_top_k_accumulate(' ~ name ~ ', 2048)']) -%}
    {%- elif data_type in ('bigint', 'int', 'double') or data_type.startswith('decimal') -%}
      {%- do measures.extend(['sum(cast(' ~ name ~ ' as double))', 'var_pop(cast(' ~ name ~ ' as double))',
                              'hll_sketch_agg(xxhash64(' ~ name ~ '), 14)',
                              'kll_sketch_agg_double(cast(' ~ name ~ ' as double), 16000)',
                              'approx_top_k_accumulate(' ~ name ~ ', 2048)']) -%}
    {%- elif data_type == 'date' -%}
      {%- do measures.extend(['hll_sketch_agg(cast(unix_date(' ~ name ~ ') as bigint), 14)',
                              'kll_sketch_agg_double(cast(unix_date(' ~ name ~ ') as double), 16000)',
                              'approx_top_k_accumulate(' ~ name ~ ', 2048)']) -%}
    {%- elif data_type == 'boolean' -%}
      {%- do measures.append('count_if(' ~ name ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set aggregate = 'select ' ~ measures | join(', ') ~ ' from ' ~ this -%}
  {%- if scan_only -%}
    {#- Run here: dbt-spark's session connection never runs a hook's SELECT, it only plans it. -#}
    {%- do run_query(aggregate) -%}
    {{ return('') }}
  {%- endif -%}
  {#- A table of marks per model: concurrent INSERTs into one table clash over its _temporary directory. -#}
  {%- set marks = this.schema ~ '_floor.' ~ this.identifier ~ '_marks' -%}
  {%- set sink = this.schema ~ '_floor.' ~ this.identifier -%}
  {%- if var('floor_setup', false) -%}
    {#- Made by a build before the timed ones: the least run finds its tables there. -#}
    {%- do run_query('create schema if not exists ' ~ this.schema ~ '_floor') -%}
    {%- do run_query('create table if not exists ' ~ marks ~ ' (run_id string, rows bigint) using parquet') -%}
    {%- do run_query('drop table if exists ' ~ sink) -%}
    {%- do run_query('create table ' ~ sink ~ ' using parquet as ' ~ aggregate ~ ' limit 0') -%}
  {%- endif -%}
  {%- do run_query("insert into " ~ marks ~ " values ('run', 1)") -%}
  {%- do run_query("select * from " ~ marks ~ " where run_id = 'run' limit 1") -%}
  {{ return('insert into ' ~ sink ~ ' ' ~ aggregate) }}
{% endmacro %}
