/* The JSON reader of read.h: read_loop.h's loop, calling the callbacks
 * through their pointers. */
#include "json/read.h"

#define DDBST__READ_LINKAGE
#define DDBST__READ_NAME ddbst__json_read
#define DDBST__READ_HAS(on) (cb->on != NULL)
#define DDBST__READ_CALL(on) cb->on
#define DDBST__READ_STRING_ROOM
#include "json/read_loop.h"
