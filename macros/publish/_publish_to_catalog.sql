{#-
  publish: true — the run's table statistics go into Spark's catalog the way Spark's own ANALYZE
  stores them (row count, size; per column min, max, null count, distinct count, average length
  rounded up as Spark rounds it, max length, and the histogram), so DESCRIBE EXTENDED shows them
  and the cost-based optimizer uses them.

  Spark refuses `spark.sql.statistics.*` table properties from SQL: the values go in through the
  JVM catalog API of the in-process session (the library's adapter method, see
  python/src/dbt_analyze/publish.py). Over any other connection (a Thrift server) the most Spark
  accepts from outside is the size, through its own ANALYZE ... NOSCAN: that is done, and the
  log says what was left out. Returns the milliseconds it took.
-#}
{% macro _publish_to_catalog(table, run_id) %}
  {%- set started = modules.datetime.datetime.utcnow() -%}
  {%- set name = table.schema ~ '.' ~ table.identifier -%}
  {%- set payload = dbt_analyze._catalog_payload(table, run_id) -%}
  {%- set outcome = adapter.dbt_analyze_publish_statistics(tojson(payload))
                    if adapter.dbt_analyze_publish_statistics is defined
                    else 'the dbt-analyze library is not installed' -%}
  {%- if outcome == 'published' -%}
    {{ log('dbt_analyze: published the statistics of ' ~ name ~ ' to the Spark catalog (' ~ payload.columns | length
           ~ ' column(s))', info=True) }}
  {%- else -%}
    {%- do run_query('analyze table ' ~ table.quoted ~ ' compute statistics noscan') -%}
    {{ log('dbt_analyze: ' ~ name ~ ': only the size was published to the Spark catalog (' ~ outcome
           ~ '): Spark accepts row counts and'
           ~ ' column statistics from outside only through the JVM catalog API of an in-process session (dbt-spark method: session)', info=True) }}
  {%- endif -%}
  {{ return(dbt_analyze._elapsed_ms(started)) }}
{% endmacro %}

{#- The run's table-level statistics as Spark's catalog holds them, every value a string. Complex
    and interval types are left out (Spark keeps no statistics of them). -#}
{% macro _catalog_payload(table, run_id) %}
  {%- set where = ' where run_id = ' ~ dbt_analyze._quote_literal(run_id) ~ ' and '
                  ~ dbt_analyze._table_where_sql(table) ~ " and partition_spec = ''" -%}
  {%- set table_row = run_query('select cast(row_count as string), cast(size_bytes as string) from '
                                ~ dbt_analyze._storage_relation('table_statistics_history') ~ where) -%}
  {%- set payload = {'schema': table.schema, 'table': table.identifier,
                     'row_count': table_row[0][0] if table_row else none,
                     'size_bytes': table_row[0][1] if table_row else '0', 'columns': []} -%}
  {%- set extremes = [] -%}
  {%- set bounds = [] -%}
  {%- set names = [] -%}
  {%- for column in table.data_columns if dbt_analyze._type_category(column.data_type) not in ('collection', 'struct',
      'interval', 'other') -%}
    {%- set when = 'when ' ~ dbt_analyze._quote_literal(column.name) ~ ' then ' -%}
    {%- do names.append(dbt_analyze._quote_literal(column.name)) -%}
    {%- do extremes.append([when ~ dbt_analyze._catalog_value_sql('min_value', column.data_type),
                            when ~ dbt_analyze._catalog_value_sql('max_value', column.data_type)]) -%}
    {%- if dbt_analyze._type_category(column.data_type) in ('integral', 'fractional', 'decimal', 'date',
                                                            'timestamp') -%}
      {%- do bounds.append([when ~ dbt_analyze._catalog_bound_sql('lower_bound', column.data_type),
                            when ~ dbt_analyze._catalog_bound_sql('upper_bound', column.data_type)]) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if not extremes -%}{{ return(payload) }}{%- endif -%}
  {%- set columns = run_query('select column_name, cast(null_count as string), cast(distinct_count as string),'
                              ~ ' case column_name ' ~ extremes | map('first') | join(' ') ~ ' end,'
                              ~ ' case column_name ' ~ extremes | map('last') | join(' ') ~ ' end,'
                              ~ ' cast(cast(ceil(avg_len) as bigint) as string), cast(max_len as string) from '
                              ~ dbt_analyze._storage_relation('column_statistics_history') ~ where
                              ~ ' and column_name in (' ~ names | join(', ') ~ ')') -%}
  {%- set bins = run_query('select column_name, case column_name ' ~ bounds | map('first') | join(' ')
                           ~ ' end, case column_name '
                           ~ bounds | map('last') | join(' ') ~ ' end, distinct_count, row_count from '
                           ~ dbt_analyze._storage_relation('column_histograms_history') ~ where
                           ~ ' order by column_name, bin') if bounds else [] -%}
  {%- for row in columns -%}
    {%- set column = {'name': row[0], 'null_count': row[1], 'distinct_count': row[2], 'min': row[3], 'max': row[4],
                      'avg_len': row[5], 'max_len': row[6]} -%}
    {%- set column_bins = [] -%}
    {%- set st = namespace(rows=0.0) -%}
    {%- for bin in bins if bin[0] == row[0] and bin[1] is not none -%}
      {%- do column_bins.append([bin[1] | float, bin[2] | float, bin[3] | int]) -%}
      {%- set st.rows = st.rows + bin[4] | float -%}
    {%- endfor -%}
    {%- if column_bins -%}
      {%- do column.update({'histogram': {'height': st.rows / column_bins | length, 'bins': column_bins}}) -%}
    {%- endif -%}
    {%- do payload.columns.append(column) -%}
  {%- endfor -%}
  {{ return(payload) }}
{% endmacro %}

{#- SQL of min/max (a string field) as Spark's catalog writes them: nothing for strings and
    binaries, timestamps in UTC with microseconds, the rest as cast(x as string) renders it. -#}
{% macro _catalog_value_sql(field, data_type) %}
  {%- set category = dbt_analyze._type_category(data_type) -%}
  {%- if category in ('string', 'binary') -%}{{ return('cast(null as string)') }}
  {%- elif category == 'timestamp' -%}
    {{ return("date_format(to_utc_timestamp(cast(" ~ field
              ~ " as timestamp), current_timezone()), 'yyyy-MM-dd HH:mm:ss.SSSSSS')") }}
  {%- elif category == 'timestamp_ntz' -%}
    {{ return("date_format(cast(" ~ field ~ " as timestamp_ntz), 'yyyy-MM-dd HH:mm:ss.SSSSSS')") }}
  {%- endif -%}
  {{ return(field) }}
{% endmacro %}

{#- SQL of a histogram bound as the double Spark's histograms hold: days for dates, microseconds
    for timestamps. -#}
{% macro _catalog_bound_sql(field, data_type) %}
  {%- set category = dbt_analyze._type_category(data_type) -%}
  {%- if category == 'date' -%}{{ return('cast(unix_date(cast(' ~ field ~ ' as date)) as double)') }}
  {%- elif category == 'timestamp' -%}{{ return('cast(unix_micros(cast(' ~ field ~ ' as timestamp)) as double)') }}
  {%- endif -%}
  {{ return('cast(' ~ field ~ ' as double)') }}
{% endmacro %}
