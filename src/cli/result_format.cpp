#include "cli/result_format.h"

#include <string>

#include "duckdb.hpp"
#include "duckdb/common/box_renderer.hpp"

namespace moraine::cli {
namespace {

// RFC 4180: quote a field that holds a separator, a quote or a line break.
std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted.push_back('"');
    quoted.push_back(c);
  }
  return quoted + "\"";
}

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 0xF]);
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

std::string JsonValue(const duckdb::Value& value) {
  if (value.IsNull()) return "null";
  switch (value.type().id()) {
    case duckdb::LogicalTypeId::BOOLEAN:
      return value.GetValue<bool>() ? "true" : "false";
    case duckdb::LogicalTypeId::TINYINT:
    case duckdb::LogicalTypeId::SMALLINT:
    case duckdb::LogicalTypeId::INTEGER:
    case duckdb::LogicalTypeId::BIGINT:
    case duckdb::LogicalTypeId::UTINYINT:
    case duckdb::LogicalTypeId::USMALLINT:
    case duckdb::LogicalTypeId::UINTEGER:
    case duckdb::LogicalTypeId::UBIGINT:
    case duckdb::LogicalTypeId::HUGEINT:
    case duckdb::LogicalTypeId::DOUBLE:
    case duckdb::LogicalTypeId::FLOAT:
    case duckdb::LogicalTypeId::DECIMAL: {
      const std::string text = value.ToString();
      // JSON has no NaN or infinity: those travel as strings.
      if (text.find_first_not_of("0123456789+-.eE") != std::string::npos) return JsonString(text);
      return text;
    }
    default:
      return JsonString(value.ToString());
  }
}

void PrintCsv(duckdb::MaterializedQueryResult& result, std::ostream& out) {
  for (size_t col = 0; col < result.ColumnCount(); ++col) {
    out << (col ? "," : "") << CsvField(result.ColumnName(col));
  }
  out << "\n";
  for (size_t row = 0; row < result.RowCount(); ++row) {
    for (size_t col = 0; col < result.ColumnCount(); ++col) {
      const auto value = result.GetValue(col, row);
      out << (col ? "," : "") << (value.IsNull() ? "" : CsvField(value.ToString()));
    }
    out << "\n";
  }
}

// One JSON object per row (JSON Lines), keys in column order.
void PrintJson(duckdb::MaterializedQueryResult& result, std::ostream& out) {
  for (size_t row = 0; row < result.RowCount(); ++row) {
    out << "{";
    for (size_t col = 0; col < result.ColumnCount(); ++col) {
      out << (col ? "," : "") << JsonString(result.ColumnName(col)) << ":"
          << JsonValue(result.GetValue(col, row));
    }
    out << "}\n";
  }
}

}  // namespace

void PrintResult(duckdb::MaterializedQueryResult& result, duckdb::ClientContext& context,
                 OutputFormat format, std::ostream& out) {
  switch (format) {
    case OutputFormat::kCsv:
      PrintCsv(result, out);
      return;
    case OutputFormat::kJson:
      PrintJson(result, out);
      return;
    case OutputFormat::kBox:
      out << result.ToBox(context, duckdb::BoxRendererConfig());
      return;
  }
}

}  // namespace moraine::cli
