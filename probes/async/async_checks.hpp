// What every async check file includes. Each check is one file under probes/async/ defining its
// `CheckDef make_async_...()`; async_checks.cpp declares and lists them, in run order.
#pragma once

#include "core/check.hpp"
