{#-
  ANALYZE TABLE name [PARTITION (k1[=v1] [, k2[=v2] ...])] COMPUTE STATISTICS
      [NOSCAN | FOR COLUMNS c1 [, c2 ...] | FOR ALL COLUMNS] [;]
  ANALYZE TABLES [{FROM | IN} schema] COMPUTE STATISTICS [NOSCAN | FOR ALL COLUMNS] [;]

  The grammar of Spark's and Flink's ANALYZE TABLE, and Spark's ANALYZE TABLES (every table of a
  schema; here FOR ALL COLUMNS is allowed too): keywords case-insensitive, identifiers bare or in
  backquotes, comments as in Spark SQL, partition values as Spark's literals: strings (adjacent
  ones joined), numbers (with a type suffix, 5L), DATE/TIMESTAMP '...', TRUE/FALSE and NULL (the
  partition of NULL values, which a request names ''). Returns the request dict that
  `relation:`-style arguments produce too (ANALYZE TABLES: `tables_in`, the schema or none for the
  current one); a malformed statement raises an error with the position (1-based character
  offset) and what was expected there.
-#}
{% macro _parse_analyze_statement(statement, run=none) %}
  {%- set parsed = dbt_analyze._parse_statement(statement) -%}
  {%- if parsed.error -%}
    {{ dbt_analyze._fail(run, parsed.error) }}
  {%- endif -%}
  {{ return(parsed) }}
{% endmacro %}

{#- The parse itself: the request, or {'error': message} (Jinja cannot catch a raised error, and
    the grammar tests check thousands of statements in one dbt call). -#}
{% macro _parse_statement(statement) %}
  {#- Whitespace and comments (-- to the end of the line, /* ... */), as Spark's parser skips them, make no token. -#}
  {%- set token_pattern = modules.re.compile(
        "\\s+|--[^\\n]*|/\\*.*?\\*/"
        ~ "|(?P<quoted>`(?:[^`]|``)*`)"
        ~ "|(?P<string>'(?:[^'\\\\]|\\\\.|'')*'|\"(?:[^\"\\\\]|\\\\.|\"\")*\")"
        ~ "|(?P<number>[-+]?[0-9]+(?:\\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?:[LlSsYyDdFf]|[Bb][Dd])?(?![A-Za-z0-9_]))"
        ~ "|(?P<word>[A-Za-z0-9_]+)"
        ~ "|(?P<symbol>[(),.=;])"
        ~ "|(?P<other>.)", modules.re.DOTALL) -%}
  {%- set tokens = [] -%}
  {%- for m in token_pattern.finditer(statement) -%}
    {%- if m.lastgroup -%}
      {%- do tokens.append({'kind': m.lastgroup, 'text': m.group(0), 'pos': m.start() + 1}) -%}
    {%- endif -%}
  {%- endfor -%}

  {%- set request = {'relation': none, 'partition': none, 'columns': none, 'noscan': false, 'error': none} -%}
  {%- set st = namespace(state='analyze', name_parts=[], key=none, partition={}, columns=[], error=none, tables=false,
                         string_value=false) -%}
  {%- set expected = {
        'analyze': 'ANALYZE', 'table': 'TABLE or TABLES', 'name': 'a table name',
        'after_name': "'.', PARTITION or COMPUTE",
        'tables_from': 'FROM, IN or COMPUTE', 'schema_name': 'a schema name', 'after_schema': "'.' or COMPUTE",
        'part_open': "'('", 'part_key': 'a partition column', 'part_eq': "'=', ',' or ')'",
        'part_value': 'a partition value (string or number literal)', 'part_typed': 'a string literal',
        'part_next': "',' or ')'",
        'compute': 'COMPUTE', 'statistics': 'STATISTICS', 'options': 'NOSCAN, FOR or the end',
        'for': 'COLUMNS or ALL', 'all': 'COLUMNS', 'column': 'a column name', 'column_next': "',' or the end",
        'end': 'the end of the statement', 'done': 'the end of the statement'} -%}

  {%- for tok in tokens if st.error is none -%}
    {%- set word = tok.text | upper if tok.kind == 'word' else none -%}
    {%- set ident = none -%}
    {%- if tok.kind == 'word' -%}{%- set ident = tok.text -%}
    {%- elif tok.kind == 'quoted' -%}{%- set ident = tok.text[1:-1] | replace('``', '`') -%}{%- endif -%}
    {%- set s = st.state -%}
    {%- if s == 'analyze' and word == 'ANALYZE' -%}{%- set st.state = 'table' -%}
    {%- elif s == 'table' and word == 'TABLE' -%}{%- set st.state = 'name' -%}
    {%- elif s == 'table' and word == 'TABLES' -%}{%- set st.tables = true -%}{%- set st.state = 'tables_from' -%}
    {%- elif s == 'tables_from' and word in ('FROM', 'IN') -%}{%- set st.state = 'schema_name' -%}
    {%- elif s in ('tables_from', 'after_schema') and word == 'COMPUTE' -%}{%- set st.state = 'statistics' -%}
    {%- elif s == 'schema_name' and ident is not none -%}{%- do st.name_parts.append(ident) -%}
        {%- set st.state = 'after_schema' -%}
    {%- elif s == 'after_schema' and tok.text == '.' and st.name_parts | length < 2 -%}
        {%- set st.state = 'schema_name' -%}
    {%- elif s == 'name' and ident is not none -%}
      {%- do st.name_parts.append(ident) -%}{%- set st.state = 'after_name' -%}
    {%- elif s == 'after_name' and tok.text == '.' and st.name_parts | length < 3 -%}{%- set st.state = 'name' -%}
    {%- elif s == 'after_name' and word == 'PARTITION' -%}{%- set st.state = 'part_open' -%}
    {%- elif s == 'after_name' and word == 'COMPUTE' -%}{%- set st.state = 'statistics' -%}
    {%- elif s == 'part_open' and tok.text == '(' -%}{%- set st.state = 'part_key' -%}
    {%- elif s == 'part_key' and ident is not none -%}
      {%- if ident in st.partition -%}
        {%- set st.error = "partition column '" ~ ident ~ "' given twice at position " ~ tok.pos -%}
      {%- endif -%}
      {%- set st.key = ident -%}{%- do st.partition.update({ident: none}) -%}{%- set st.state = 'part_eq' -%}
    {%- elif s == 'part_eq' and tok.text == '=' -%}{%- set st.state = 'part_value' -%}
    {%- elif s in ('part_eq', 'part_next') and tok.text == ',' -%}{%- set st.state = 'part_key' -%}
    {%- elif s in ('part_eq', 'part_next') and tok.text == ')' -%}{%- set st.state = 'compute' -%}
    {%- elif s == 'part_value' and word in ('DATE', 'TIMESTAMP', 'TIMESTAMP_NTZ', 'TIMESTAMP_LTZ') -%}
      {#- A typed literal, DATE '2024-01-02': its text, which is cast to the partition column's type. -#}
      {%- set st.state = 'part_typed' -%}
    {%- elif (s == 'part_value' and tok.kind in ('string', 'number', 'word'))
        or (s == 'part_typed' and tok.kind == 'string')
             or (s == 'part_next' and tok.kind == 'string' and st.string_value) -%}
      {%- if tok.kind == 'string' -%}
        {%- set q = tok.text[0] -%}
        {%- set value = modules.re.sub("\\\\(.)", "\\1", tok.text[1:-1] | replace(q ~ q, q)) -%}
        {#- Adjacent string literals are one value, as in Spark: 'a' 'b' is 'ab'. -#}
        {%- set value = st.partition[st.key] ~ value if s == 'part_next' else value -%}
      {%- elif word == 'NULL' -%}
        {#- Spark's k=NULL: the partition of NULL values ('' is how a request names it). -#}
        {%- set value = '' -%}
      {%- elif tok.kind == 'number' -%}
        {#- A typed number (5L, 1.5D, 2BD) is the number. -#}
        {%- set value = modules.re.sub('(?i)(bd|[lsydf])$', '', tok.text) -%}
      {%- else -%}
        {%- set value = tok.text -%}
      {%- endif -%}
      {%- set st.string_value = tok.kind == 'string' and s != 'part_typed' -%}
      {%- do st.partition.update({st.key: value}) -%}{%- set st.state = 'part_next' -%}
    {%- elif s == 'compute' and word == 'COMPUTE' -%}{%- set st.state = 'statistics' -%}
    {%- elif s == 'statistics' and word == 'STATISTICS' -%}{%- set st.state = 'options' -%}
    {%- elif s == 'options' and word == 'NOSCAN' -%}{%- do request.update({'noscan': true}) -%}
        {%- set st.state = 'end' -%}
    {%- elif s == 'options' and word == 'FOR' -%}{%- set st.state = 'for' -%}
    {%- elif s == 'for' and word == 'ALL' -%}{%- set st.state = 'all' -%}
    {%- elif s == 'for' and word == 'COLUMNS' and st.tables -%}
      {%- set st.error = "FOR COLUMNS names columns of one table; ANALYZE TABLES takes NOSCAN or FOR ALL COLUMNS (at position " ~ tok.pos ~ ")" -%}
    {%- elif s == 'for' and word == 'COLUMNS' -%}{%- set st.state = 'column' -%}
    {%- elif s == 'all' and word == 'COLUMNS' -%}{%- do request.update({'columns': 'all'}) -%}
        {%- set st.state = 'end' -%}
    {%- elif s == 'column' and ident is not none -%}{%- do st.columns.append(ident) -%}
        {%- set st.state = 'column_next' -%}
    {%- elif s == 'column_next' and tok.text == ',' -%}{%- set st.state = 'column' -%}
    {%- elif s in ('options', 'end', 'column_next') and tok.text == ';' -%}{%- set st.state = 'done' -%}
    {%- else -%}
      {%- set st.error = "expected " ~ expected[s] ~ " at position " ~ tok.pos ~ ", found '" ~ tok.text ~ "'" -%}
    {%- endif -%}
  {%- endfor -%}

  {%- if st.error is none and st.state not in ('options', 'end', 'column_next', 'done') -%}
    {%- set st.error = "expected " ~ expected[st.state] ~ " at position " ~ (statement | length + 1)
                       ~ ", found the end of the statement" -%}
  {%- endif -%}
  {%- if st.error is not none -%}
    {{ return({'error': "malformed ANALYZE statement: " ~ st.error ~ "\n  " ~ statement}) }}
  {%- endif -%}

  {%- set parts = st.name_parts -%}
  {%- if st.tables -%}
    {%- set catalog_error = dbt_analyze._unsupported_catalog(parts, 2) -%}
    {%- if catalog_error -%}{{ return({'error': catalog_error}) }}{%- endif -%}
    {%- do request.update({'tables_in': parts[-1] if parts else none}) -%}
    {{ return(request) }}
  {%- endif -%}
  {%- set catalog_error = dbt_analyze._unsupported_catalog(parts, 3) -%}
  {%- if catalog_error -%}{{ return({'error': catalog_error}) }}{%- endif -%}
  {%- set parts = parts[1:] if parts | length == 3 else parts -%}
  {%- do request.update({'relation': parts | join('.') if parts | length == 1 else none,
                         'schema': parts[0] if parts | length == 2 else none,
                         'identifier': parts[-1]}) -%}
  {%- if st.partition -%}{%- do request.update({'partition': st.partition}) -%}{%- endif -%}
  {%- if st.columns -%}{%- do request.update({'columns': st.columns}) -%}{%- endif -%}
  {{ return(request) }}
{% endmacro %}

{#- The error for a name of `length` parts whose first part names a catalog other than Spark's
    session catalog (the only one whose tables dbt-spark reaches), else none. -#}
{% macro _unsupported_catalog(parts, length) %}
  {{ return("catalog '" ~ parts[0] ~ "' is not supported (only spark_catalog)"
            if parts | length == length and parts[0] | lower != 'spark_catalog' else none) }}
{% endmacro %}
