// Kept so that backends written against the earlier single-header SDK still compile: the
// visibility helpers are in zl/sdk/visibility.hpp, and this name brings the whole SDK, as it did.
#pragma once

#include <zl/backend_sdk.hpp>
