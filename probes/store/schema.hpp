// The store's schema, the same for SQLite and PostgreSQL, as numbered migrations. Opening a
// store applies the ones it lacks, in order, each in the transaction that records it.
#pragma once

#include <memory>
#include <string>

#include "store/database.hpp"

namespace gpuconform::store {

// The schema version this build writes and reads.
int schema_version();

// Brings `db` up to schema_version(). Safe when many processes open one PostgreSQL store at
// once (an advisory lock serialises them) and for SQLite (the write lock). Refuses a store
// whose schema is newer than this build knows.
void migrate(Database& db);

// The version a store is at (0: empty).
int stored_schema_version(Database& db);

// Opens the store at `location` (parse_store_location's forms) and brings its schema up to date;
// throws StoreError with why not.
std::unique_ptr<Database> open_store(const std::string& location);

}  // namespace gpuconform::store
