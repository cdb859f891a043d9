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

/* The reverb presets of efx-presets.h (113 in OpenAL Soft 1.19.1), by index: the values come
 * from the installed header at compile time, the names are the macro names without their
 * EFX_REVERB_PRESET_ prefix, in lower case ("castle_smallroom"). Returns NULL past the end. */
#include <AL/efx-presets.h>
#define EARSHOT_REVERB_PRESET_COUNT 113
static inline const char *earshot_reverb_preset(int index, EFXEAXREVERBPROPERTIES *out) {
    switch (index) {
        case 0: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_GENERIC; *out = p; return "generic"; }
        case 1: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PADDEDCELL; *out = p; return "paddedcell"; }
        case 2: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ROOM; *out = p; return "room"; }
        case 3: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_BATHROOM; *out = p; return "bathroom"; }
        case 4: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_LIVINGROOM; *out = p; return "livingroom"; }
        case 5: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_STONEROOM; *out = p; return "stoneroom"; }
        case 6: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_AUDITORIUM; *out = p; return "auditorium"; }
        case 7: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CONCERTHALL; *out = p; return "concerthall"; }
        case 8: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CAVE; *out = p; return "cave"; }
        case 9: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ARENA; *out = p; return "arena"; }
        case 10: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_HANGAR; *out = p; return "hangar"; }
        case 11: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CARPETEDHALLWAY; *out = p; return "carpetedhallway"; }
        case 12: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_HALLWAY; *out = p; return "hallway"; }
        case 13: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_STONECORRIDOR; *out = p; return "stonecorridor"; }
        case 14: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ALLEY; *out = p; return "alley"; }
        case 15: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FOREST; *out = p; return "forest"; }
        case 16: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY; *out = p; return "city"; }
        case 17: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_MOUNTAINS; *out = p; return "mountains"; }
        case 18: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_QUARRY; *out = p; return "quarry"; }
        case 19: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PLAIN; *out = p; return "plain"; }
        case 20: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PARKINGLOT; *out = p; return "parkinglot"; }
        case 21: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SEWERPIPE; *out = p; return "sewerpipe"; }
        case 22: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_UNDERWATER; *out = p; return "underwater"; }
        case 23: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRUGGED; *out = p; return "drugged"; }
        case 24: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DIZZY; *out = p; return "dizzy"; }
        case 25: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PSYCHOTIC; *out = p; return "psychotic"; }
        case 26: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_SMALLROOM; *out = p; return "castle_smallroom"; }
        case 27: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_SHORTPASSAGE; *out = p; return "castle_shortpassage"; }
        case 28: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_MEDIUMROOM; *out = p; return "castle_mediumroom"; }
        case 29: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_LARGEROOM; *out = p; return "castle_largeroom"; }
        case 30: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_LONGPASSAGE; *out = p; return "castle_longpassage"; }
        case 31: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_HALL; *out = p; return "castle_hall"; }
        case 32: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_CUPBOARD; *out = p; return "castle_cupboard"; }
        case 33: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_COURTYARD; *out = p; return "castle_courtyard"; }
        case 34: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CASTLE_ALCOVE; *out = p; return "castle_alcove"; }
        case 35: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_SMALLROOM; *out = p; return "factory_smallroom"; }
        case 36: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_SHORTPASSAGE; *out = p; return "factory_shortpassage"; }
        case 37: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_MEDIUMROOM; *out = p; return "factory_mediumroom"; }
        case 38: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_LARGEROOM; *out = p; return "factory_largeroom"; }
        case 39: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_LONGPASSAGE; *out = p; return "factory_longpassage"; }
        case 40: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_HALL; *out = p; return "factory_hall"; }
        case 41: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_CUPBOARD; *out = p; return "factory_cupboard"; }
        case 42: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_COURTYARD; *out = p; return "factory_courtyard"; }
        case 43: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_FACTORY_ALCOVE; *out = p; return "factory_alcove"; }
        case 44: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_SMALLROOM; *out = p; return "icepalace_smallroom"; }
        case 45: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_SHORTPASSAGE; *out = p; return "icepalace_shortpassage"; }
        case 46: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_MEDIUMROOM; *out = p; return "icepalace_mediumroom"; }
        case 47: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_LARGEROOM; *out = p; return "icepalace_largeroom"; }
        case 48: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_LONGPASSAGE; *out = p; return "icepalace_longpassage"; }
        case 49: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_HALL; *out = p; return "icepalace_hall"; }
        case 50: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_CUPBOARD; *out = p; return "icepalace_cupboard"; }
        case 51: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_COURTYARD; *out = p; return "icepalace_courtyard"; }
        case 52: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_ICEPALACE_ALCOVE; *out = p; return "icepalace_alcove"; }
        case 53: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_SMALLROOM; *out = p; return "spacestation_smallroom"; }
        case 54: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_SHORTPASSAGE; *out = p; return "spacestation_shortpassage"; }
        case 55: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_MEDIUMROOM; *out = p; return "spacestation_mediumroom"; }
        case 56: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_LARGEROOM; *out = p; return "spacestation_largeroom"; }
        case 57: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_LONGPASSAGE; *out = p; return "spacestation_longpassage"; }
        case 58: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_HALL; *out = p; return "spacestation_hall"; }
        case 59: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_CUPBOARD; *out = p; return "spacestation_cupboard"; }
        case 60: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPACESTATION_ALCOVE; *out = p; return "spacestation_alcove"; }
        case 61: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_SMALLROOM; *out = p; return "wooden_smallroom"; }
        case 62: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_SHORTPASSAGE; *out = p; return "wooden_shortpassage"; }
        case 63: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_MEDIUMROOM; *out = p; return "wooden_mediumroom"; }
        case 64: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_LARGEROOM; *out = p; return "wooden_largeroom"; }
        case 65: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_LONGPASSAGE; *out = p; return "wooden_longpassage"; }
        case 66: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_HALL; *out = p; return "wooden_hall"; }
        case 67: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_CUPBOARD; *out = p; return "wooden_cupboard"; }
        case 68: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_COURTYARD; *out = p; return "wooden_courtyard"; }
        case 69: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_WOODEN_ALCOVE; *out = p; return "wooden_alcove"; }
        case 70: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_EMPTYSTADIUM; *out = p; return "sport_emptystadium"; }
        case 71: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_SQUASHCOURT; *out = p; return "sport_squashcourt"; }
        case 72: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_SMALLSWIMMINGPOOL; *out = p; return "sport_smallswimmingpool"; }
        case 73: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_LARGESWIMMINGPOOL; *out = p; return "sport_largeswimmingpool"; }
        case 74: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_GYMNASIUM; *out = p; return "sport_gymnasium"; }
        case 75: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_FULLSTADIUM; *out = p; return "sport_fullstadium"; }
        case 76: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SPORT_STADIUMTANNOY; *out = p; return "sport_stadiumtannoy"; }
        case 77: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PREFAB_WORKSHOP; *out = p; return "prefab_workshop"; }
        case 78: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PREFAB_SCHOOLROOM; *out = p; return "prefab_schoolroom"; }
        case 79: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PREFAB_PRACTISEROOM; *out = p; return "prefab_practiseroom"; }
        case 80: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PREFAB_OUTHOUSE; *out = p; return "prefab_outhouse"; }
        case 81: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PREFAB_CARAVAN; *out = p; return "prefab_caravan"; }
        case 82: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DOME_TOMB; *out = p; return "dome_tomb"; }
        case 83: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PIPE_SMALL; *out = p; return "pipe_small"; }
        case 84: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DOME_SAINTPAULS; *out = p; return "dome_saintpauls"; }
        case 85: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PIPE_LONGTHIN; *out = p; return "pipe_longthin"; }
        case 86: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PIPE_LARGE; *out = p; return "pipe_large"; }
        case 87: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_PIPE_RESONANT; *out = p; return "pipe_resonant"; }
        case 88: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_OUTDOORS_BACKYARD; *out = p; return "outdoors_backyard"; }
        case 89: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_OUTDOORS_ROLLINGPLAINS; *out = p; return "outdoors_rollingplains"; }
        case 90: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_OUTDOORS_DEEPCANYON; *out = p; return "outdoors_deepcanyon"; }
        case 91: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_OUTDOORS_CREEK; *out = p; return "outdoors_creek"; }
        case 92: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_OUTDOORS_VALLEY; *out = p; return "outdoors_valley"; }
        case 93: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_MOOD_HEAVEN; *out = p; return "mood_heaven"; }
        case 94: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_MOOD_HELL; *out = p; return "mood_hell"; }
        case 95: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_MOOD_MEMORY; *out = p; return "mood_memory"; }
        case 96: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_COMMENTATOR; *out = p; return "driving_commentator"; }
        case 97: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_PITGARAGE; *out = p; return "driving_pitgarage"; }
        case 98: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_INCAR_RACER; *out = p; return "driving_incar_racer"; }
        case 99: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_INCAR_SPORTS; *out = p; return "driving_incar_sports"; }
        case 100: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_INCAR_LUXURY; *out = p; return "driving_incar_luxury"; }
        case 101: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_FULLGRANDSTAND; *out = p; return "driving_fullgrandstand"; }
        case 102: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_EMPTYGRANDSTAND; *out = p; return "driving_emptygrandstand"; }
        case 103: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DRIVING_TUNNEL; *out = p; return "driving_tunnel"; }
        case 104: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY_STREETS; *out = p; return "city_streets"; }
        case 105: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY_SUBWAY; *out = p; return "city_subway"; }
        case 106: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY_MUSEUM; *out = p; return "city_museum"; }
        case 107: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY_LIBRARY; *out = p; return "city_library"; }
        case 108: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY_UNDERPASS; *out = p; return "city_underpass"; }
        case 109: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CITY_ABANDONED; *out = p; return "city_abandoned"; }
        case 110: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_DUSTYROOM; *out = p; return "dustyroom"; }
        case 111: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_CHAPEL; *out = p; return "chapel"; }
        case 112: { static const EFXEAXREVERBPROPERTIES p = EFX_REVERB_PRESET_SMALLWATERROOM; *out = p; return "smallwaterroom"; }
        default: return 0;
    }
}

/* EFX reverb parameters set in one call (the effect must be of type AL_EFFECT_EAXREVERB). */
static inline void earshot_set_eaxreverb(ALuint effect, const EFXEAXREVERBPROPERTIES *r) {
    alEffectf(effect, AL_EAXREVERB_DENSITY, r->flDensity);
    alEffectf(effect, AL_EAXREVERB_DIFFUSION, r->flDiffusion);
    alEffectf(effect, AL_EAXREVERB_GAIN, r->flGain);
    alEffectf(effect, AL_EAXREVERB_GAINHF, r->flGainHF);
    alEffectf(effect, AL_EAXREVERB_GAINLF, r->flGainLF);
    alEffectf(effect, AL_EAXREVERB_DECAY_TIME, r->flDecayTime);
    alEffectf(effect, AL_EAXREVERB_DECAY_HFRATIO, r->flDecayHFRatio);
    alEffectf(effect, AL_EAXREVERB_DECAY_LFRATIO, r->flDecayLFRatio);
    alEffectf(effect, AL_EAXREVERB_REFLECTIONS_GAIN, r->flReflectionsGain);
    alEffectf(effect, AL_EAXREVERB_REFLECTIONS_DELAY, r->flReflectionsDelay);
    alEffectfv(effect, AL_EAXREVERB_REFLECTIONS_PAN, r->flReflectionsPan);
    alEffectf(effect, AL_EAXREVERB_LATE_REVERB_GAIN, r->flLateReverbGain);
    alEffectf(effect, AL_EAXREVERB_LATE_REVERB_DELAY, r->flLateReverbDelay);
    alEffectfv(effect, AL_EAXREVERB_LATE_REVERB_PAN, r->flLateReverbPan);
    alEffectf(effect, AL_EAXREVERB_ECHO_TIME, r->flEchoTime);
    alEffectf(effect, AL_EAXREVERB_ECHO_DEPTH, r->flEchoDepth);
    alEffectf(effect, AL_EAXREVERB_MODULATION_TIME, r->flModulationTime);
    alEffectf(effect, AL_EAXREVERB_MODULATION_DEPTH, r->flModulationDepth);
    alEffectf(effect, AL_EAXREVERB_AIR_ABSORPTION_GAINHF, r->flAirAbsorptionGainHF);
    alEffectf(effect, AL_EAXREVERB_HFREFERENCE, r->flHFReference);
    alEffectf(effect, AL_EAXREVERB_LFREFERENCE, r->flLFReference);
    alEffectf(effect, AL_EAXREVERB_ROOM_ROLLOFF_FACTOR, r->flRoomRolloffFactor);
    alEffecti(effect, AL_EAXREVERB_DECAY_HFLIMIT, r->iDecayHFLimit);
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
