"""Runs a SQL script in the stock Python `duckdb` package, as a user would.

usage: python run_sql.py SCRIPT

Statements are separated by a semicolon at the end of a line. The result of
each query is printed as CSV with its header, the way the stock CLI's -csv
mode prints it (NULL as NULL, a field with a comma or a quote in quotes), so
that the two front ends can be compared line by line. The first error stops
the script: it is printed as `<exception class>: <message>` and the exit
status is 1.
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
    connection = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    for sql in statements(text):
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
