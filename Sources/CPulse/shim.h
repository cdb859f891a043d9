#ifndef EARSHOT_CPULSE_SHIM_H
#define EARSHOT_CPULSE_SHIM_H

/* Thin C view of libpulse for Swift: the default-output watcher's in-process subscription to
 * PulseAudio server events (also served by PipeWire's PulseAudio server). The flag and mask
 * combinations are enum ORs in C: done here rather than through Swift's imported raw values. */
#include <pulse/pulseaudio.h>

/* Connects to the default server, never spawning one (autospawn would start a daemon as a child
 * of the game). Returns what pa_context_connect returns (negative: failed at once). */
static inline int earshot_pa_connect(pa_context *c) {
    return pa_context_connect(c, NULL, PA_CONTEXT_NOAUTOSPAWN, NULL);
}

/* Subscribes to server changes (the default sink) and sink changes (a sink removed). */
static inline pa_operation *earshot_pa_subscribe_server_and_sinks(pa_context *c) {
    return pa_context_subscribe(c, (pa_subscription_mask_t)(PA_SUBSCRIPTION_MASK_SERVER | PA_SUBSCRIPTION_MASK_SINK), NULL, NULL);
}

/* 1 for the events that may change where the game plays: any server change, a sink removed. */
static inline int earshot_pa_event_is_relevant(pa_subscription_event_type_t t) {
    unsigned facility = t & PA_SUBSCRIPTION_EVENT_FACILITY_MASK;
    unsigned type = t & PA_SUBSCRIPTION_EVENT_TYPE_MASK;
    return facility == PA_SUBSCRIPTION_EVENT_SERVER
        || (facility == PA_SUBSCRIPTION_EVENT_SINK && type == PA_SUBSCRIPTION_EVENT_REMOVE);
}

/* A one-shot timer on the main loop, `usec` from now. */
static inline pa_time_event *earshot_pa_after(pa_mainloop_api *api, pa_usec_t usec, pa_time_event_cb_t cb, void *userdata) {
    struct timeval tv;
    pa_gettimeofday(&tv);
    pa_timeval_add(&tv, usec);
    return api->time_new(api, &tv, cb, userdata);
}

static inline void earshot_pa_time_free(pa_mainloop_api *api, pa_time_event *e) {
    api->time_free(e);
}

#endif
