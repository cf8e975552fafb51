#include "app.hpp"

int main(int argc, char** argv)
{
  return zl::cli::main(argc, argv);
}
