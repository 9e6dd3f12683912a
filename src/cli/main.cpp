// The moraine host: a DuckDB with moraine registered and DuckLake loaded,
// plus the store tools.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/tour.h"

int main(int argc, char** argv) {
  CLI::App app{"moraine: a DuckLake catalog in an embedded key-value store"};
  app.require_subcommand(1);

  std::string tour_dir = "moraine-tour";
  auto* tour = app.add_subcommand("tour", "a short printed tour of a lake on moraine");
  tour->add_option("--dir", tour_dir, "working directory for the tour (recreated)");

  CLI11_PARSE(app, argc, argv);
  try {
    if (*tour) return moraine::cli::RunTour(tour_dir);
  } catch (const std::exception& error) {
    std::cerr << "moraine: " << error.what() << "\n";
    return 1;
  }
  return 0;
}
