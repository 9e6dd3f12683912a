"""Runs a SQL script in the stock Python `duckdb` package, as a user would.

usage: python run_sql.py SCRIPT

Statements are separated by a semicolon at the end of a line. The result of
each query is printed as CSV with its header, the way the stock CLI's -csv
mode prints it (NULL as NULL, a field with a comma or a quote in quotes), so
that the two front ends can be compared line by line. The first error stops
the script: it is printed as `<exception class>: <message>` and the exit
status is 1.

A statement whose first line is `-- connection: NAME` runs on the connection
of that name, a second connection to the same database (`cursor()`) made on
first use; `-- connection: main` is the first. Other front ends read the line
as a comment, so a script that uses it is for Python only.
"""

import sys

import duckdb


def statements(text):
    current = []
    for line in text.splitlines():
        current.append(line)
        if line.rstrip().endswith(";"):
            yield "\n".join(current)
            current = []
    if "".join(current).strip():
        yield "\n".join(current)


def field(value):
    if value is None:
        return "NULL"
    text = str(value)
    if any(c in text for c in ",\"'\n"):
        return '"' + text.replace('"', '""') + '"'
    return text


def main():
    with open(sys.argv[1], encoding="utf-8") as script:
        text = script.read()
    # The README's line for Python: unsigned extensions are allowed at start-up.
    main_connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    connections = {"main": main_connection}
    for sql in statements(text):
        first = sql.lstrip().splitlines()[0]
        name = first[len("-- connection:"):].strip() if first.startswith("-- connection:") else "main"
        if name not in connections:
            connections[name] = main_connection.cursor()
        connection = connections[name]
        try:
            # Like the CLI, print what queries return, not the counts of DML.
            query = duckdb.extract_statements(sql)[0].type == duckdb.StatementType.SELECT
            connection.execute(sql)
            rows = connection.fetchall() if query else []
        except duckdb.Error as error:
            print(f"{type(error).__name__}: {error}")
            return 1
        if query:
            print(",".join(field(column[0]) for column in connection.description))
            for row in rows:
                print(",".join(field(value) for value in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
