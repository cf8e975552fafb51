#include "app.hpp"

#include "util/process.hpp"

int main(int argc, char** argv)
{
  // Before anything opens a file: a closed 0, 1 or 2 would make it zl's standard stream.
  zl::util::ensure_standard_descriptors();
  return zl::cli::main(argc, argv);
}
