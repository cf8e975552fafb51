/* Libraries the test modules link: one the loader cannot find, one that carries an entry point
 * a module does not have itself. */
#include <zl/backend_abi.h>

#include <stddef.h>

#ifdef ZL_TEST_DEP_MISSING
int zl_test_missing_function(void)
{
  return 1;
}
#else
int zl_test_dependency_marker(void)
{
  return 1;
}
ZL_BACKEND_EXPORT const zl_backend_descriptor* zl_backend_get_descriptor(void)
{
  return NULL;
}
#endif
