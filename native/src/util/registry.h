/* A policy registry: a static array of pointers to ops structs, each with a `name` member. Defines
 * PREFIX_at(i) (NULL past the last) and PREFIX_find(name) (NULL when unknown), so every list of a
 * seam's names (identify, error messages, docs checks) comes from the one array.
 * CSD_REGISTRY_KEYED names the member that holds the name, e.g. `ops->name` for entries that point
 * at their ops. */
#ifndef CSD_UTIL_REGISTRY_H
#define CSD_UTIL_REGISTRY_H

#include <stddef.h>
#include <string.h>

#define CSD_REGISTRY_KEYED(prefix, type, array, key)                                          \
    const type *prefix##_at(size_t i) {                                                        \
        return i < sizeof array / sizeof array[0] ? array[i] : NULL;                           \
    }                                                                                          \
    const type *prefix##_find(const char *name) {                                              \
        const type *o;                                                                         \
        for (size_t i = 0; name && (o = prefix##_at(i)); i++)                                  \
            if (strcmp(o->key, name) == 0) return o;                                           \
        return NULL;                                                                           \
    }

#define CSD_REGISTRY(prefix, type, array) CSD_REGISTRY_KEYED(prefix, type, array, name)

#endif
