// A DuckLake session for the fault tier: attaches the lake given on the
// command line and runs each further argument as one statement, printing
// "ok" or "error: <message>" per statement and going on after an error, so
// that the test sees both how a fault surfaces and whether the session then
// recovers. Run with MORAINE_TEST_FAULT armed.
#include <iostream>
#include <string>

#include "duckdb.hpp"
#include "ducklake_adapter/host.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: fault_session ATTACH-STATEMENT [STATEMENT...]\n";
    return 2;
  }
  moraine::ducklake_adapter::Host host;
  auto connection = host.Connect();
  for (int i = 1; i < argc; ++i) {
    auto result = connection->Query(argv[i]);
    if (result->HasError()) {
      std::string message = result->GetError();
      for (char& c : message) c = c == '\n' ? ' ' : c;  // one line per statement
      std::cout << "error: " << message << "\n";
      if (i == 1) return 1;  // no lake, no session
    } else {
      std::cout << "ok\n";
    }
    std::cout.flush();
  }
  return 0;
}
