// Runs a SQL script in the stock Node client, @duckdb/node-api, as a user
// would: the Node counterpart of run_sql.py, printing the same bytes.
//
// usage: node run_sql.mjs SCRIPT   (NODE_PATH names the node_modules holding
// @duckdb/node-api; tests/ecosystem/stock_duckdb.h sets it)
//
// Statements are separated by a semicolon at the end of a line. The result of
// each query is printed as CSV with its header, as the stock CLI's -csv mode
// prints it (NULL as NULL, a field with a comma or a quote in quotes). The
// first error stops the script: it is printed as `<error class>: <message>`
// and the exit status is 1.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

// An ES module ignores NODE_PATH; require() honours it.
const require = createRequire(import.meta.url);
const { DuckDBInstance, StatementType } = require('@duckdb/node-api');

function* statements(text) {
  let current = [];
  for (const line of text.split('\n')) {
    current.push(line);
    if (line.trimEnd().endsWith(';')) {
      yield current.join('\n');
      current = [];
    }
  }
  if (current.join('').trim() !== '') yield current.join('\n');
}

function field(value) {
  if (value === null || value === undefined) return 'NULL';
  const text = String(value);
  return /[,"'\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

async function main() {
  const text = readFileSync(process.argv[2], 'utf8');
  // The README's line for Node: unsigned extensions are allowed at start-up.
  const instance = await DuckDBInstance.create(':memory:', { allow_unsigned_extensions: 'true' });
  const connection = await instance.connect();
  for (const sql of statements(text)) {
    let reader;
    try {
      reader = await connection.runAndReadAll(sql);
    } catch (error) {
      console.log(`${error.name}: ${error.message}`);
      return 1;
    }
    // Like the CLI, print what queries return, not the counts of DML.
    if (reader.statementType !== StatementType.SELECT) continue;
    const lines = [reader.columnNames().map(field).join(',')];
    for (const row of reader.getRowsJS()) lines.push(row.map(field).join(','));
    console.log(lines.join('\n'));
  }
  return 0;
}

process.exitCode = await main();
