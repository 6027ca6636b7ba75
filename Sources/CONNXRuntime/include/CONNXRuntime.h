// Memora's own declarations of the small part of ONNX Runtime's C API that the scene embedder
// uses (Docs/Models.md). They are written here, not copied from Microsoft's headers, which the
// project does not vendor.
//
// Nothing here is linked: the library (`lib/libonnxruntime.so.1.32.0` in the models folder, put
// there by scripts/install-models.sh) is opened at run time with dlopen, its one exported entry
// point `OrtGetApiBase` is looked up with dlsym, and every other call goes through the table of
// function pointers that `OrtApiBase.GetApi` returns.
//
// The table's layout is ONNX Runtime's ABI: one pointer per slot, in a fixed order that new
// versions only append to (API version N is a prefix of version N + 1). `OrtApi` below lists the
// slots from the first one up to the last one Memora calls (slot 100, ReleaseSessionOptions); the
// ones it calls are typed, the others are `void *` under their ONNX Runtime names, so that the
// list can be read against ONNX Runtime's documentation. Every slot used here was already in API
// version 1, so that is the version requested (MEMORA_ORT_API_VERSION); ONNX Runtime 1.32.0, the
// pinned library, serves every version from 1 to 32. A call from a later version means adding
// the slots up to it and raising MEMORA_ORT_API_VERSION to the version that introduced it.
//
// Conventions of the API: a function that can fail returns an `OrtStatus *`, NULL on success;
// a non-NULL status holds a code and a message and must be released with ReleaseStatus. Objects
// that the API creates are released with the matching Release* slot (each accepts NULL). Paths
// are `char` strings in UTF-8 (ONNX Runtime takes wide strings on Windows only, not supported here).
#ifndef CONNXRUNTIME_H
#define CONNXRUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The API version Memora asks `OrtApiBase.GetApi` for (see above).
#define MEMORA_ORT_API_VERSION 1u
/// The file name of the pinned library in the models folder's `lib/`.
#define MEMORA_ORT_LIBRARY_FILE "libonnxruntime.so.1.32.0"
/// The library's one entry point, for dlsym.
#define MEMORA_ORT_ENTRY_POINT "OrtGetApiBase"

// MARK: Opaque objects (only ever handled through pointers)

typedef struct OrtEnv OrtEnv;                                        ///< logging and thread pools; one per process
typedef struct OrtStatus OrtStatus;                                  ///< an error: code and message
typedef struct OrtSessionOptions OrtSessionOptions;                  ///< threads, graph optimisation, ...
typedef struct OrtSession OrtSession;                                ///< a loaded model
typedef struct OrtRunOptions OrtRunOptions;                          ///< per-run options (NULL for defaults)
typedef struct OrtValue OrtValue;                                    ///< a tensor (input or output)
typedef struct OrtMemoryInfo OrtMemoryInfo;                          ///< where a tensor's memory lives
typedef struct OrtTensorTypeAndShapeInfo OrtTensorTypeAndShapeInfo;  ///< a tensor's element type and dimensions
/// ONNX Runtime's allocator. It is a public struct of function pointers in ONNX Runtime; Memora
/// never reads its fields (it frees what the allocator returned with `OrtApi.AllocatorFree`),
/// so it is left incomplete here.
typedef struct OrtAllocator OrtAllocator;

// MARK: Enumerations (the numeric values are part of the ABI)

/// The least severe message the environment logs (CreateEnv).
typedef enum OrtLoggingLevel {
    ORT_LOGGING_LEVEL_VERBOSE = 0,
    ORT_LOGGING_LEVEL_INFO = 1,
    ORT_LOGGING_LEVEL_WARNING = 2,
    ORT_LOGGING_LEVEL_ERROR = 3,
    ORT_LOGGING_LEVEL_FATAL = 4,
} OrtLoggingLevel;

/// The code in an `OrtStatus` (GetErrorCode). Later versions add codes after these.
typedef enum OrtErrorCode {
    ORT_OK = 0,
    ORT_FAIL = 1,
    ORT_INVALID_ARGUMENT = 2,
    ORT_NO_SUCHFILE = 3,
    ORT_NO_MODEL = 4,
    ORT_ENGINE_ERROR = 5,
    ORT_RUNTIME_EXCEPTION = 6,
    ORT_INVALID_PROTOBUF = 7,
    ORT_MODEL_LOADED = 8,
    ORT_NOT_IMPLEMENTED = 9,
    ORT_INVALID_GRAPH = 10,
    ORT_EP_FAIL = 11,
} OrtErrorCode;

/// A tensor's element type: ONNX's `TensorProto.DataType` numbers. Only the ones Memora meets.
typedef enum ONNXTensorElementDataType {
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED = 0,
    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT = 1,    ///< float (IEEE 754 binary32)
    ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8 = 2,    ///< uint8_t
    ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64 = 7,    ///< int64_t
    ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16 = 10, ///< IEEE 754 binary16
} ONNXTensorElementDataType;

/// How much the graph is rewritten when a session is created (SetSessionGraphOptimizationLevel).
typedef enum GraphOptimizationLevel {
    ORT_DISABLE_ALL = 0,
    ORT_ENABLE_BASIC = 1,
    ORT_ENABLE_EXTENDED = 2,
    ORT_ENABLE_ALL = 99,
} GraphOptimizationLevel;

/// The kind of allocator a memory description names (CreateCpuMemoryInfo).
typedef enum OrtAllocatorType {
    OrtInvalidAllocator = -1,
    OrtDeviceAllocator = 0,
    OrtArenaAllocator = 1,
} OrtAllocatorType;

/// Which memory of a device (CreateCpuMemoryInfo); a CPU tensor is `OrtMemTypeDefault`.
typedef enum OrtMemType {
    OrtMemTypeCPUInput = -2,
    OrtMemTypeCPUOutput = -1,
    OrtMemTypeCPU = -1,
    OrtMemTypeDefault = 0,
} OrtMemType;

// MARK: The function table

struct OrtApi;

/// What `OrtGetApiBase()` returns.
typedef struct OrtApiBase {
    /// The function table for API `version`, or NULL when the library does not serve it (it then
    /// also prints a line to stderr).
    const struct OrtApi *(*GetApi)(uint32_t version);
    /// The library's version, "1.32.0"; a static string.
    const char *(*GetVersionString)(void);
} OrtApiBase;

/// The type of the `OrtGetApiBase` entry point, for the pointer that dlsym returns.
typedef const OrtApiBase *(*OrtGetApiBaseFunction)(void);

/// ONNX Runtime's function table, slots 0 to 100 (API version 1). The number before each slot is
/// its index; `void *` slots are not called by Memora.
typedef struct OrtApi {
    /*   0 */ void *CreateStatus;
    /*   1 */ OrtErrorCode (*GetErrorCode)(const OrtStatus *status);
    /*   2 */ const char *(*GetErrorMessage)(const OrtStatus *status);  ///< owned by the status
    /*   3 */ OrtStatus *(*CreateEnv)(OrtLoggingLevel level, const char *logId, OrtEnv **out);
    /*   4 */ void *CreateEnvWithCustomLogger;
    /*   5 */ void *EnableTelemetryEvents;
    /*   6 */ void *DisableTelemetryEvents;
    /*   7 */ OrtStatus *(*CreateSession)(const OrtEnv *env, const char *modelPath,
                                          const OrtSessionOptions *options, OrtSession **out);
    /*   8 */ void *CreateSessionFromArray;
    /// Runs the model: `inputCount` named inputs in, `outputCount` named outputs out. An output
    /// slot that holds NULL receives a tensor that ONNX Runtime allocates (release it with
    /// ReleaseValue). `runOptions` may be NULL.
    /*   9 */ OrtStatus *(*Run)(OrtSession *session, const OrtRunOptions *runOptions,
                                const char *const *inputNames, const OrtValue *const *inputs, size_t inputCount,
                                const char *const *outputNames, size_t outputCount, OrtValue **outputs);
    /*  10 */ OrtStatus *(*CreateSessionOptions)(OrtSessionOptions **out);
    /*  11 */ void *SetOptimizedModelFilePath;
    /*  12 */ void *CloneSessionOptions;
    /*  13 */ void *SetSessionExecutionMode;
    /*  14 */ void *EnableProfiling;
    /*  15 */ void *DisableProfiling;
    /*  16 */ void *EnableMemPattern;
    /*  17 */ void *DisableMemPattern;
    /*  18 */ void *EnableCpuMemArena;
    /// Frees each run's buffers when it ends instead of keeping them in an arena (models whose
    /// input size changes from run to run would otherwise keep the largest run's memory).
    /*  19 */ OrtStatus *(*DisableCpuMemArena)(OrtSessionOptions *options);
    /*  20 */ void *SetSessionLogId;
    /*  21 */ void *SetSessionLogVerbosityLevel;
    /*  22 */ void *SetSessionLogSeverityLevel;
    /*  23 */ OrtStatus *(*SetSessionGraphOptimizationLevel)(OrtSessionOptions *options, GraphOptimizationLevel level);
    /// Threads that one operator may use (0: one per physical core).
    /*  24 */ OrtStatus *(*SetIntraOpNumThreads)(OrtSessionOptions *options, int threads);
    /// Threads that run independent operators at once (only in parallel execution mode).
    /*  25 */ OrtStatus *(*SetInterOpNumThreads)(OrtSessionOptions *options, int threads);
    /*  26 */ void *CreateCustomOpDomain;
    /*  27 */ void *CustomOpDomain_Add;
    /*  28 */ void *AddCustomOpDomain;
    /*  29 */ void *RegisterCustomOpsLibrary;
    /*  30 */ OrtStatus *(*SessionGetInputCount)(const OrtSession *session, size_t *out);
    /*  31 */ OrtStatus *(*SessionGetOutputCount)(const OrtSession *session, size_t *out);
    /*  32 */ void *SessionGetOverridableInitializerCount;
    /*  33 */ void *SessionGetInputTypeInfo;
    /*  34 */ void *SessionGetOutputTypeInfo;
    /*  35 */ void *SessionGetOverridableInitializerTypeInfo;
    /// The name of input `index`, allocated with `allocator` (free it with AllocatorFree).
    /*  36 */ OrtStatus *(*SessionGetInputName)(const OrtSession *session, size_t index, OrtAllocator *allocator,
                                                char **out);
    /// The name of output `index`, allocated with `allocator` (free it with AllocatorFree).
    /*  37 */ OrtStatus *(*SessionGetOutputName)(const OrtSession *session, size_t index, OrtAllocator *allocator,
                                                 char **out);
    /*  38 */ void *SessionGetOverridableInitializerName;
    /*  39 */ void *CreateRunOptions;
    /*  40 */ void *RunOptionsSetRunLogVerbosityLevel;
    /*  41 */ void *RunOptionsSetRunLogSeverityLevel;
    /*  42 */ void *RunOptionsSetRunTag;
    /*  43 */ void *RunOptionsGetRunLogVerbosityLevel;
    /*  44 */ void *RunOptionsGetRunLogSeverityLevel;
    /*  45 */ void *RunOptionsGetRunTag;
    /*  46 */ void *RunOptionsSetTerminate;
    /*  47 */ void *RunOptionsUnsetTerminate;
    /*  48 */ void *CreateTensorAsOrtValue;
    /// A tensor over the caller's buffer (`byteCount` bytes at `data`, not copied): the buffer
    /// must outlive the value, and `memoryInfo` may be released once the value exists.
    /*  49 */ OrtStatus *(*CreateTensorWithDataAsOrtValue)(const OrtMemoryInfo *memoryInfo, void *data, size_t byteCount,
                                                           const int64_t *shape, size_t shapeCount,
                                                           ONNXTensorElementDataType type, OrtValue **out);
    /*  50 */ void *IsTensor;
    /// The tensor's elements, owned by the value.
    /*  51 */ OrtStatus *(*GetTensorMutableData)(OrtValue *value, void **out);
    /*  52 */ void *FillStringTensor;
    /*  53 */ void *GetStringTensorDataLength;
    /*  54 */ void *GetStringTensorContent;
    /*  55 */ void *CastTypeInfoToTensorInfo;
    /*  56 */ void *GetOnnxTypeFromTypeInfo;
    /*  57 */ void *CreateTensorTypeAndShapeInfo;
    /*  58 */ void *SetTensorElementType;
    /*  59 */ void *SetDimensions;
    /*  60 */ OrtStatus *(*GetTensorElementType)(const OrtTensorTypeAndShapeInfo *info, ONNXTensorElementDataType *out);
    /*  61 */ OrtStatus *(*GetDimensionsCount)(const OrtTensorTypeAndShapeInfo *info, size_t *out);
    /// Writes the first `count` dimensions (-1 for a dynamic one).
    /*  62 */ OrtStatus *(*GetDimensions)(const OrtTensorTypeAndShapeInfo *info, int64_t *dimensions, size_t count);
    /*  63 */ void *GetSymbolicDimensions;
    /*  64 */ void *GetTensorShapeElementCount;
    /// The value's element type and shape (release it with ReleaseTensorTypeAndShapeInfo).
    /*  65 */ OrtStatus *(*GetTensorTypeAndShape)(const OrtValue *value, OrtTensorTypeAndShapeInfo **out);
    /*  66 */ void *GetTypeInfo;
    /*  67 */ void *GetValueType;
    /*  68 */ void *CreateMemoryInfo;
    /*  69 */ OrtStatus *(*CreateCpuMemoryInfo)(OrtAllocatorType type, OrtMemType memoryType, OrtMemoryInfo **out);
    /*  70 */ void *CompareMemoryInfo;
    /*  71 */ void *MemoryInfoGetName;
    /*  72 */ void *MemoryInfoGetId;
    /*  73 */ void *MemoryInfoGetMemType;
    /*  74 */ void *MemoryInfoGetType;
    /*  75 */ void *AllocatorAlloc;
    /*  76 */ OrtStatus *(*AllocatorFree)(OrtAllocator *allocator, void *pointer);
    /*  77 */ void *AllocatorGetInfo;
    /// The process-wide CPU allocator; never released.
    /*  78 */ OrtStatus *(*GetAllocatorWithDefaultOptions)(OrtAllocator **out);
    /*  79 */ void *AddFreeDimensionOverride;
    /*  80 */ void *GetValue;
    /*  81 */ void *GetValueCount;
    /*  82 */ void *CreateValue;
    /*  83 */ void *CreateOpaqueValue;
    /*  84 */ void *GetOpaqueValue;
    /*  85 */ void *KernelInfoGetAttribute_float;
    /*  86 */ void *KernelInfoGetAttribute_int64;
    /*  87 */ void *KernelInfoGetAttribute_string;
    /*  88 */ void *KernelContext_GetInputCount;
    /*  89 */ void *KernelContext_GetOutputCount;
    /*  90 */ void *KernelContext_GetInput;
    /*  91 */ void *KernelContext_GetOutput;
    /*  92 */ void (*ReleaseEnv)(OrtEnv *env);
    /*  93 */ void (*ReleaseStatus)(OrtStatus *status);
    /*  94 */ void (*ReleaseMemoryInfo)(OrtMemoryInfo *memoryInfo);
    /*  95 */ void (*ReleaseSession)(OrtSession *session);
    /*  96 */ void (*ReleaseValue)(OrtValue *value);
    /*  97 */ void *ReleaseRunOptions;
    /*  98 */ void *ReleaseTypeInfo;
    /*  99 */ void (*ReleaseTensorTypeAndShapeInfo)(OrtTensorTypeAndShapeInfo *info);
    /* 100 */ void (*ReleaseSessionOptions)(OrtSessionOptions *options);
    // Slot 101 (ReleaseCustomOpDomain) closes API version 1; later slots are not declared.
} OrtApi;

// Each slot is one pointer wide, so a slot's offset is its index times the size of a pointer.
#ifdef __cplusplus
#define CONNXRUNTIME_STATIC_ASSERT static_assert
#else
#define CONNXRUNTIME_STATIC_ASSERT _Static_assert
#endif
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, GetErrorCode) == 1 * sizeof(void *), "OrtApi slot 1");
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, Run) == 9 * sizeof(void *), "OrtApi slot 9");
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, SessionGetInputName) == 36 * sizeof(void *), "OrtApi slot 36");
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, CreateTensorWithDataAsOrtValue) == 49 * sizeof(void *), "OrtApi slot 49");
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, CreateCpuMemoryInfo) == 69 * sizeof(void *), "OrtApi slot 69");
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, GetAllocatorWithDefaultOptions) == 78 * sizeof(void *), "OrtApi slot 78");
CONNXRUNTIME_STATIC_ASSERT(offsetof(OrtApi, ReleaseEnv) == 92 * sizeof(void *), "OrtApi slot 92");
CONNXRUNTIME_STATIC_ASSERT(sizeof(OrtApi) == 101 * sizeof(void *), "OrtApi declares slots 0 to 100");
#undef CONNXRUNTIME_STATIC_ASSERT

#ifdef __cplusplus
}
#endif

#endif
