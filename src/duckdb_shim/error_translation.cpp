#include "duckdb_shim/error_translation.h"

#include "duckdb/common/exception.hpp"
#include "duckdb/common/exception/catalog_exception.hpp"
#include "duckdb/common/exception/transaction_exception.hpp"

namespace moraine::duckdb_shim {

void ThrowAsDuckDB(const store::Error& error) {
  const std::string message = error.what();
  switch (error.code()) {
    case store::ErrorCode::kConflict:
      throw duckdb::TransactionException(message);
    case store::ErrorCode::kConstraint:
      throw duckdb::ConstraintException(message);
    case store::ErrorCode::kInvalidArgument:
      throw duckdb::InvalidInputException(message);
    case store::ErrorCode::kNotFound:
      throw duckdb::CatalogException(message);
    case store::ErrorCode::kReadOnly:
    case store::ErrorCode::kAccessDenied:
      throw duckdb::PermissionException(message);
    case store::ErrorCode::kCorruption:
    case store::ErrorCode::kStoreLocked:
    case store::ErrorCode::kIo:
    case store::ErrorCode::kUnsupportedVersion:
      throw duckdb::IOException(message);
  }
  throw duckdb::IOException(message);
}

duckdb::ErrorData AsDuckDBError(const store::Error& error) {
  try {
    ThrowAsDuckDB(error);
  } catch (const std::exception& translated) {
    return duckdb::ErrorData(translated);
  }
}

}  // namespace moraine::duckdb_shim
