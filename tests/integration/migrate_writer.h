/* The writer process of the migration proof (migrate_writer.c). */
#ifndef DDBST_ITEST_MIGRATE_WRITER_H
#define DDBST_ITEST_MIGRATE_WRITER_H

#include <stdint.h>

/* Writes under the NEW model to `table` until SIGTERM, logging each write
 * DynamoDB accepted to `log_path`. The process's exit status: 0, or 1
 * when a write failed (said on stderr). */
int mig_writer_main(const char *table, const char *log_path, uint64_t seed);

#endif
