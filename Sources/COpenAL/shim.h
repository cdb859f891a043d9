#ifndef EARSHOT_COPENAL_SHIM_H
#define EARSHOT_COPENAL_SHIM_H

/* Thin C view of OpenAL Soft for Swift. Prototypes of the ratified extensions come from
 * alext.h (AL_ALEXT_PROTOTYPES); the experimental event extension of 1.19.1 is declared
 * here because the installed headers lack it. */
#define AL_ALEXT_PROTOTYPES 1
#include <AL/al.h>
#include <AL/alc.h>
#include <AL/alext.h>
#include <AL/efx.h>

/* AL_SOFTX_events (OpenAL Soft 1.19.1 values; later releases renumbered them as
 * AL_SOFT_events 0x19A2...; check the extension string at run time). */
#ifndef AL_SOFTX_events
#define AL_SOFTX_events 1
#define AL_EVENT_CALLBACK_FUNCTION_SOFTX        0x1220
#define AL_EVENT_CALLBACK_USER_PARAM_SOFTX      0x1221
#define AL_EVENT_TYPE_BUFFER_COMPLETED_SOFTX    0x1222
#define AL_EVENT_TYPE_SOURCE_STATE_CHANGED_SOFTX 0x1223
#define AL_EVENT_TYPE_ERROR_SOFTX               0x1224
#define AL_EVENT_TYPE_PERFORMANCE_SOFTX         0x1225
#define AL_EVENT_TYPE_DEPRECATED_SOFTX          0x1226
#define AL_EVENT_TYPE_DISCONNECTED_SOFTX        0x1227
typedef void (AL_APIENTRY *ALEVENTPROCSOFTX)(ALenum eventType, ALuint object, ALuint param,
                                             ALsizei length, const ALchar *message,
                                             void *userParam);
typedef void (AL_APIENTRY *LPALEVENTCONTROLSOFTX)(ALsizei count, const ALenum *types, ALboolean enable);
typedef void (AL_APIENTRY *LPALEVENTCALLBACKSOFTX)(ALEVENTPROCSOFTX callback, void *userParam);
#endif

/* Swift cannot call a function pointer obtained from alGetProcAddress without a cast
 * through an opaque pointer; these helpers keep that cast in C. They return 0 when the
 * function is absent. */
static inline int earshot_al_event_control(void *fn, ALsizei count, const ALenum *types, ALboolean enable) {
    if (!fn) return 0;
    ((LPALEVENTCONTROLSOFTX)fn)(count, types, enable);
    return 1;
}
static inline int earshot_al_event_callback(void *fn, ALEVENTPROCSOFTX callback, void *user) {
    if (!fn) return 0;
    ((LPALEVENTCALLBACKSOFTX)fn)(callback, user);
    return 1;
}

/* ALSA's error messages. libasound (loaded by OpenAL Soft's ALSA backend) prints "ALSA lib ..."
 * lines to stderr through a variadic handler that Swift cannot define; this one formats the
 * message and hands it to `earshot_alsa_forward` (a Swift function that logs it), or drops it. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
typedef void (*earshot_message_fn)(const char *message);
static earshot_message_fn earshot_alsa_forward = 0;
static inline void earshot_alsa_error_handler(const char *file, int line, const char *function, int err,
                                              const char *fmt, ...) {
    (void)err;
    if (!earshot_alsa_forward) return;
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char message[768];
    snprintf(message, sizeof message, "ALSA lib %s:%d:(%s) %s", file ? file : "?", line, function ? function : "?", text);
    earshot_alsa_forward(message);
}
/* Installs the handler above with snd_lib_error_set_handler (process-wide). Returns 1 when
 * installed, 0 when libasound is not there. */
static inline int earshot_route_alsa_errors(earshot_message_fn forward) {
    void *lib = dlopen("libasound.so.2", RTLD_LAZY);
    if (!lib) return 0;
    void *fn = dlsym(lib, "snd_lib_error_set_handler");
    if (!fn) return 0;
    typedef void (*handler_fn)(const char *, int, const char *, int, const char *, ...);
    typedef int (*set_fn)(handler_fn);
    earshot_alsa_forward = forward;
    return ((set_fn)fn)(earshot_alsa_error_handler) == 0;
}

#endif
