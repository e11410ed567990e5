{#- The least post-hook that keeps mergeable statistics in a table (bench/spark_floor.py's least
    run, sent through dbt): the model's columns (a DESCRIBE), a started mark written and read back,
    and one INSERT of the scan's aggregate of every column, exact measures and the sketches at the
    sizes the package's vars give a run. With scan_only, the aggregate's SELECT alone, its rows
    fetched: no write at all. No merge, no arrays, no events after: a floor under any design, not a
    statistics run. -#}
{% macro floor_hook(scan_only=false) %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set hll_lg_k, kll_k = dbt_analyze._var('dbt_analyze_hll_lg_k'), dbt_analyze._var('dbt_analyze_kll_k') -%}
  {%- set tracked = dbt_analyze._var('dbt_analyze_top_k_tracked') -%}
  {%- set measures = ['count(1)'] -%}
  {%- for column in adapter.get_columns_in_relation(this) -%}
    {%- set name, data_type = adapter.quote(column.name), column.dtype | lower -%}
    {%- do measures.extend(['count(' ~ name ~ ')', 'min(' ~ name ~ ')', 'max(' ~ name ~ ')']) -%}
    {#- Each type's HLL input and KLL input (none: no quantiles), as bench/spark_floor.py's sketch_input. -#}
    {%- set hll_input, kll_input = none, none -%}
    {%- if data_type == 'string' -%}
      {%- do measures.extend(['sum(length(' ~ name ~ '))', 'max(length(' ~ name ~ '))']) -%}
      {%- set hll_input = name -%}
    {%- elif data_type in ('bigint', 'int', 'double') or data_type.startswith('decimal') -%}
      {%- do measures.extend(['sum(cast(' ~ name ~ ' as double))', 'var_pop(cast(' ~ name ~ ' as double))']) -%}
      {%- set hll_input, kll_input = 'xxhash64(' ~ name ~ ')', 'cast(' ~ name ~ ' as double)' -%}
    {%- elif data_type == 'date' -%}
      {%- set hll_input, kll_input = 'cast(unix_date(' ~ name ~ ') as bigint)', 'cast(unix_date(' ~ name ~ ') as double)' -%}
    {%- elif data_type == 'boolean' -%}
      {%- do measures.append('count_if(' ~ name ~ ')') -%}
    {%- endif -%}
    {%- if hll_input -%}
      {%- do measures.extend(['hll_sketch_agg(' ~ hll_input ~ ', ' ~ hll_lg_k ~ ')',
                              'approx_top_k_accumulate(' ~ name ~ ', ' ~ tracked ~ ')']) -%}
    {%- endif -%}
    {%- if kll_input -%}
      {%- do measures.append('kll_sketch_agg_double(' ~ kll_input ~ ', ' ~ kll_k ~ ')') -%}
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
