internal import PhotoVisionCore
import CONNXRuntime
import Foundation
internal import MemoraSystem

/// The one wrapper of ONNX Runtime's C API (`CONNXRuntime`, our own declarations): the library
/// is loaded at run time from the models folder, its environment made once per process, and
/// every status turned into a `VisionError` (its message kept, the status released). Only this
/// file imports the C module.
final class ONNXRuntime: Sendable {
    /// One runtime per library path: ONNX Runtime allows a single environment per process.
    private static let runtimes = Locked<[String: ONNXRuntime]>([:])

    let library: DynamicLibrary
    // Unchecked: the API table is constant, and ONNX Runtime's environment may be used from any thread.
    nonisolated(unsafe) let api: UnsafePointer<OrtApi>
    nonisolated(unsafe) let environment: OpaquePointer
    let version: String

    /// The runtime in the library at `path`, loaded (and its environment made) on first use.
    static func load(_ path: String) throws(VisionError) -> ONNXRuntime {
        try runtimes.withLock { (runtimes) throws(VisionError) -> ONNXRuntime in
            if let runtime = runtimes[path] { return runtime }
            let runtime = try ONNXRuntime(path: path)
            runtimes[path] = runtime
            return runtime
        }
    }

    private init(path: String) throws(VisionError) {
        do { library = try DynamicLibrary(path: path) } catch { throw .runtimeUnavailable(path, reason: error.reason) }
        guard let entry = library.symbol(MEMORA_ORT_ENTRY_POINT) else {
            throw .runtimeUnavailable(path, reason: "it has no \(MEMORA_ORT_ENTRY_POINT); it is not ONNX Runtime")
        }
        let getBase = unsafeBitCast(entry, to: OrtGetApiBaseFunction.self)
        guard let base = getBase(), let api = base.pointee.GetApi(MEMORA_ORT_API_VERSION) else {
            throw .runtimeUnavailable(path, reason: "it does not serve C API version \(MEMORA_ORT_API_VERSION)")
        }
        self.api = api
        version = base.pointee.GetVersionString().map { String(cString: $0) } ?? "?"
        var environment: OpaquePointer?
        try Self.check(api, api.pointee.CreateEnv(ORT_LOGGING_LEVEL_ERROR, "memora", &environment), doing: "create its environment")
        guard let environment else { throw .runtimeUnavailable(path, reason: "it created no environment") }
        self.environment = environment
    }

    /// Throws the error `status` holds (and releases it); nothing when it is NULL (success).
    static func check(_ api: UnsafePointer<OrtApi>, _ status: OpaquePointer?, doing what: String) throws(VisionError) {
        guard let status else { return }
        let message = api.pointee.GetErrorMessage(status).map { String(cString: $0) } ?? "no message"
        let code = api.pointee.GetErrorCode(status)
        api.pointee.ReleaseStatus(status)
        throw .inferenceFailed("ONNX Runtime could not \(what): \(message) (code \(code.rawValue))")
    }

    func check(_ status: OpaquePointer?, doing what: String) throws(VisionError) {
        try Self.check(api, status, doing: what)
    }

    /// A model loaded into a session, run with `threads` threads per operator.
    final class Session: Sendable {
        let runtime: ONNXRuntime
        // Unchecked: ONNX Runtime allows concurrent Run calls on one session.
        nonisolated(unsafe) let session: OpaquePointer
        let path: String
        let inputNames: [String]
        let outputNames: [String]

        /// `keepsArena`: whether buffers stay in ONNX Runtime's arena between runs (fast for a model
        /// whose input never changes size; a model fed images of many sizes frees them instead).
        init(runtime: ONNXRuntime, modelPath path: String, threads: Int, keepsArena: Bool = true) throws(VisionError) {
            self.runtime = runtime
            self.path = path
            let api = runtime.api.pointee
            var options: OpaquePointer?
            try runtime.check(api.CreateSessionOptions(&options), doing: "create session options")
            defer { api.ReleaseSessionOptions(options) }
            try runtime.check(api.SetIntraOpNumThreads(options, Int32(max(1, threads))), doing: "set its threads")
            try runtime.check(api.SetInterOpNumThreads(options, 1), doing: "set its threads")
            try runtime.check(api.SetSessionGraphOptimizationLevel(options, ORT_ENABLE_ALL), doing: "set its optimisation level")
            if !keepsArena { try runtime.check(api.DisableCpuMemArena(options), doing: "turn its memory arena off") }
            var session: OpaquePointer?
            do {
                try runtime.check(api.CreateSession(runtime.environment, path, options, &session), doing: "load the model")
            } catch {
                throw .modelUnreadable(path, reason: error.message.replacingOccurrences(of: "the model failed: ", with: ""))
            }
            guard let session else { throw .modelUnreadable(path, reason: "no session was created") }
            self.session = session
            do {
                inputNames = try Self.names(runtime, session, count: api.SessionGetInputCount, name: api.SessionGetInputName)
                outputNames = try Self.names(runtime, session, count: api.SessionGetOutputCount, name: api.SessionGetOutputName)
            } catch {
                api.ReleaseSession(session)
                throw error
            }
        }

        deinit { runtime.api.pointee.ReleaseSession(session) }

        private static func names(
            _ runtime: ONNXRuntime, _ session: OpaquePointer,
            count: (@convention(c) (OpaquePointer?, UnsafeMutablePointer<Int>?) -> OpaquePointer?)?,
            name: (@convention(c) (OpaquePointer?, Int, OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> OpaquePointer?)?
        ) throws(VisionError) -> [String] {
            let api = runtime.api.pointee
            guard let count, let name else { throw .runtimeUnavailable(runtime.library.path, reason: "its function table is incomplete") }
            var allocator: OpaquePointer?
            try runtime.check(api.GetAllocatorWithDefaultOptions(&allocator), doing: "get its allocator")
            var total = 0
            try runtime.check(count(session, &total), doing: "count the model's tensors")
            var names: [String] = []
            for index in 0..<total {
                var text: UnsafeMutablePointer<CChar>?
                try runtime.check(name(session, index, allocator, &text), doing: "name the model's tensors")
                if let text {
                    names.append(String(cString: text))
                    _ = api.AllocatorFree(allocator, text)
                }
            }
            return names
        }

        /// Runs the model on one float tensor `input` of `shape` named `inputName`, and returns the
        /// float outputs named `outputNames`, each flattened.
        func run(_ input: [Float], shape: [Int64], inputName: String, outputNames wanted: [String]) throws(VisionError) -> [[Float]] {
            let api = runtime.api.pointee
            guard shape.reduce(1, *) == Int64(input.count) else {
                throw .invalidArgument("a tensor of shape \(shape) needs \(shape.reduce(1, *)) values, got \(input.count)")
            }
            var memory: OpaquePointer?
            try runtime.check(api.CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &memory), doing: "describe CPU memory")
            defer { api.ReleaseMemoryInfo(memory) }
            // The tensor reads this buffer during the run: memory of our own, stable until freed.
            let values = UnsafeMutableBufferPointer<Float>.allocate(capacity: input.count)
            _ = values.initialize(from: input)
            defer { values.deallocate() }
            var outputs = [OpaquePointer?](repeating: nil, count: wanted.count)
            defer { for output in outputs where output != nil { api.ReleaseValue(output) } }
            var tensor: OpaquePointer?
            let made: OpaquePointer? = shape.withUnsafeBufferPointer { dimensions in
                api.CreateTensorWithDataAsOrtValue(memory, values.baseAddress, values.count * MemoryLayout<Float>.stride, dimensions.baseAddress,
                                                   dimensions.count, ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, &tensor)
            }
            try runtime.check(made, doing: "make the input tensor")
            defer { api.ReleaseValue(tensor) }
            let inputNames = Self.cStrings([inputName]), outputNames = Self.cStrings(wanted)
            defer { for name in inputNames + outputNames { name?.deallocate() } }
            let inputs: [OpaquePointer?] = [tensor]
            let inputPointers = inputNames.map { $0.map { UnsafePointer($0) } }, outputPointers = outputNames.map { $0.map { UnsafePointer($0) } }
            let ran = api.Run(session, nil, inputPointers, inputs, 1, outputPointers, wanted.count, &outputs)
            try runtime.check(ran, doing: "run the model")
            var results: [[Float]] = []
            for output in outputs {
                var info: OpaquePointer?
                try runtime.check(api.GetTensorTypeAndShape(output, &info), doing: "read an output's shape")
                defer { api.ReleaseTensorTypeAndShapeInfo(info) }
                var type = ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT
                try runtime.check(api.GetTensorElementType(info, &type), doing: "read an output's type")
                guard type == ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT else { throw .inferenceFailed("an output of \(path) is not made of floats") }
                var rank = 0
                try runtime.check(api.GetDimensionsCount(info, &rank), doing: "read an output's shape")
                var dimensions = [Int64](repeating: 0, count: rank)
                try runtime.check(api.GetDimensions(info, &dimensions, rank), doing: "read an output's shape")
                let count = Int(dimensions.reduce(1) { $0 * max($1, 0) })
                var data: UnsafeMutableRawPointer?
                try runtime.check(api.GetTensorMutableData(output, &data), doing: "read an output")
                guard let data else { throw .inferenceFailed("an output of \(path) holds no data") }
                results.append(Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: count)))
            }
            return results
        }

        /// Copies of `strings` as C strings, to deallocate after use.
        private static func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
            strings.map { string in
                let utf8 = Array(string.utf8CString)
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
                copy.initialize(from: utf8, count: utf8.count)
                return copy
            }
        }
    }
}
