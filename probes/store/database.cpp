#include "store/database.hpp"

namespace gpuconform::store {

void Database::rollback() noexcept {
    try {
        exec("ROLLBACK");
    } catch (const std::exception&) {  // nothing was open, or the connection is gone: nothing to undo
    }
}

StoreLocation parse_store_location(const std::string& text) {
    if (text.rfind("postgresql://", 0) == 0 || text.rfind("postgres://", 0) == 0) {
        return {Dialect::Postgresql, text};
    }
    if (text.rfind("pg:", 0) == 0) {
        return {Dialect::Postgresql, text.substr(3)};
    }
    return {Dialect::Sqlite, text};
}

}  // namespace gpuconform::store
