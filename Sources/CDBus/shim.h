#ifndef EARSHOT_CDBUS_SHIM_H
#define EARSHOT_CDBUS_SHIM_H

/* Thin C view of libdbus-1 for Swift (the audio session's MPRIS hint source).
 * The DBUS_TYPE_* macros are casts (`((int) 's')`) that Swift does not import: they are
 * re-exported here as constants. */
#include <dbus/dbus.h>

static const int CDBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int CDBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int CDBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int CDBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int CDBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int CDBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;
static const int CDBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;

/* Appending a C string takes the address of a `const char *`: kept in C. Returns 0 when
 * libdbus is out of memory. */
static inline int cdbus_append_string(DBusMessageIter *iter, const char *value) {
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_STRING, &value) ? 1 : 0;
}

static inline int cdbus_append_uint32(DBusMessageIter *iter, unsigned int value) {
    dbus_uint32_t v = value;
    return dbus_message_iter_append_basic(iter, DBUS_TYPE_UINT32, &v) ? 1 : 0;
}

/* The string at `iter` (which must hold a string or object path), or NULL. */
static inline const char *cdbus_iter_string(DBusMessageIter *iter) {
    int type = dbus_message_iter_get_arg_type(iter);
    if (type != DBUS_TYPE_STRING && type != DBUS_TYPE_OBJECT_PATH) return NULL;
    const char *value = NULL;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}

/* The 32-bit unsigned integer at `iter`, or `fallback` when it holds another type. */
static inline unsigned int cdbus_iter_uint32(DBusMessageIter *iter, unsigned int fallback) {
    if (dbus_message_iter_get_arg_type(iter) != DBUS_TYPE_UINT32) return fallback;
    dbus_uint32_t value = 0;
    dbus_message_iter_get_basic(iter, &value);
    return value;
}

#endif
