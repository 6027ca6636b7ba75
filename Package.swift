// swift-tools-version: 6.0
//
// Memora: portable photo-privacy and accessibility libraries.
//
// The package is layered (see Docs/Architecture.md; its module-graph table is generated from this
// manifest and `scripts/check-layering.sh` checks both against every import in `make test`):
//
//   C bridges       CSodium CExif CZlib CDeflate CExiv2 CDlib CTurboJPEG CJPEG CPNG CWebP CTIFF CHeif CFreeType
//                   CONNXRuntime CVisionKernels CQREncode CFFmpeg (+ SQLite through GRDB)
//   system layer    MemoraSystem (over CMemoraSystem): the only importer of a platform module
//                   MemoraDatabase (over MemoraSystem and GRDB): the database idiom and open policy
//                   MemoraHTTP (over MemoraSystem): the one HTTP transport
//   leaf modules    ImageKit   MetadataKit   VaultCrypto (also MemoraDatabase)
//                   PhotoVisionCore (over ImageKit: protocols, DBSCAN, scene nouns)
//                   PhotoVision (over PhotoVisionCore: dlib through CDlib, ONNX Runtime through CONNXRuntime)
//                   MemoraSync (MemoraDatabase, MemoraHTTP: the sync protocol and client)
//   composition     PhotoIndex (MetadataKit, ImageKit, PhotoVisionCore; FreeType for a collage's title)
//                   MemoraHub (MemoraSync, MetadataKit: the collector)
//                   MemoraCore (everything above but the server)
//                   MemoraServer (MemoraSync, MemoraHub, ImageKit, MetadataKit; Hummingbird, PostgresNIO)
//   test support    MemoraTesting (MemoraCore, FlyingFox), MemoraSyncTesting (MemoraServer, MemoraHTTP)
//   demo            MemoraDemo (not a product: the CLI's and the bench's demo)
//   front ends      memora (CLI), memora-server, memora-bench, loca-memory-probe,
//                   metadata-linkage-probe, index-linkage-probe and core-linkage-probe (programs that link one library alone)

import PackageDescription

/// Settings every Swift target gets: Swift 6 mode is the default for tools 6.0,
/// and complete strict concurrency checking is on everywhere.
let strictSwift: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "Memora",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // The few public types every module's API shares: CodedError, ErrorCode, MemoraClock,
        // SystemClock, ManualClock. The rest of the system layer is `package`.
        .library(name: "MemoraSystem", targets: ["MemoraSystem"]),
        .library(name: "MemoraHTTP", targets: ["MemoraHTTP"]),
        .library(name: "ImageKit", targets: ["ImageKit"]),
        .library(name: "MetadataKit", targets: ["MetadataKit"]),
        .library(name: "VaultCrypto", targets: ["VaultCrypto"]),
        .library(name: "PhotoVisionCore", targets: ["PhotoVisionCore"]),
        .library(name: "PhotoVision", targets: ["PhotoVision"]),
        .library(name: "PhotoIndex", targets: ["PhotoIndex"]),
        .library(name: "MemoraPinning", targets: ["MemoraPinning"]),
        .library(name: "MemoraCore", targets: ["MemoraCore"]),
        .library(name: "MemoraSync", targets: ["MemoraSync"]),
        .library(name: "MemoraHub", targets: ["MemoraHub"]),
        .library(name: "MemoraServer", targets: ["MemoraServer"]),
        .library(name: "MemoraTesting", targets: ["MemoraTesting"]),
        .library(name: "MemoraSyncTesting", targets: ["MemoraSyncTesting"]),
        .executable(name: "memora", targets: ["memora"]),
        .executable(name: "memora-server", targets: ["memora-server"]),
        .executable(name: "memora-bench", targets: ["memora-bench"]),
        .executable(name: "loca-memory-probe", targets: ["loca-memory-probe"]),
        .executable(name: "metadata-linkage-probe", targets: ["metadata-linkage-probe"]),
        .executable(name: "index-linkage-probe", targets: ["index-linkage-probe"]),
        .executable(name: "core-linkage-probe", targets: ["core-linkage-probe"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swhitty/FlyingFox", from: "0.27.1"),
        // memora-server (Docs/Sync.md): HTTP on SwiftNIO.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // The server's request and response types (Hummingbird's) and its logger: declared because
        // MemoraServer imports them (they come with Hummingbird).
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // memora-server's PostgreSQL store.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Pinned TLS for the cloud caption endpoints (MemoraPinning): URLSession on Linux cannot pin.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // `make docs` (DocC): a command plugin only; nothing of it is linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // MARK: C bridges: each library is wrapped once, thinly.
        .systemLibrary(
            name: "CSodium", pkgConfig: "libsodium",
            providers: [.apt(["libsodium-dev"]), .brew(["libsodium"])]),
        .systemLibrary(
            name: "CExif", pkgConfig: "libexif",
            providers: [.apt(["libexif-dev"]), .brew(["libexif"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .systemLibrary(
            name: "CDeflate", pkgConfig: "libdeflate",
            providers: [.apt(["libdeflate-dev"]), .brew(["libdeflate"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CJPEG", pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg62-turbo-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CWebP", pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]),
        .systemLibrary(
            name: "CTIFF", pkgConfig: "libtiff-4",
            providers: [.apt(["libtiff-dev"]), .brew(["libtiff"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .systemLibrary(
            name: "CHeif", pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"]), .brew(["libheif"])]),
        // The collage's title line (PhotoIndex/FreeTypeFont.swift), in a font from fonts-dejavu-core.
        .systemLibrary(
            name: "CFreeType", pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev", "fonts-dejavu-core"]), .brew(["freetype"])]),
        // libexiv2 is C++: this target exports a plain `extern "C"` API and
        // catches every C++ exception before it can reach Swift.
        .systemLibrary(
            name: "CExiv2Library", pkgConfig: "exiv2",
            providers: [.apt(["libexiv2-dev"]), .brew(["exiv2"])]),
        .target(name: "CExiv2", dependencies: ["CExiv2Library"]),
        // ONNX Runtime's C API (the scene model, Docs/Models.md), declared in our own header: no
        // link settings, since the library that scripts/install-models.sh installs is opened at
        // run time with dlopen.
        .target(name: "CONNXRuntime"),
        // dlib (C++) for face detection (HOG), 5-point landmarks and 128-float face embeddings
        // (a ResNet): the same pattern as CExiv2, a plain `extern "C"` API that catches every
        // exception. dlib-1.pc is not used: it lists BLAS, LAPACK, libpng... as absolute paths, which
        // SwiftPM's pkg-config allowlist refuses with a warning on every build; its headers are in
        // the default include path and the module map links libdlib. libdlib.so brings what it needs
        // itself, but dlib's headers call BLAS and LAPACK from our own code, so CDlib links them by name.
        // scripts/install-deps.sh installs OpenBLAS as the libblas.so.3 that runs (the face
        // embedding is about 10x slower on the reference BLAS). A debug build compiles dlib's
        // header templates here at -O0: HOG detection is then about 70x slower than at -O2.
        .systemLibrary(
            name: "CDlibLibrary",
            providers: [.apt(["libdlib-dev", "libopenblas-dev"]), .brew(["dlib"])]),
        .target(
            name: "CDlib", dependencies: ["CDlibLibrary"],
            linkerSettings: [.linkedLibrary("dlib"), .linkedLibrary("blas", .when(platforms: [.linux])), .linkedLibrary("lapack", .when(platforms: [.linux]))]),
        // The benchmark's peer: raw libturbojpeg called from C, the limit our
        // Swift decoder is measured against. Used by memora-bench only.
        .target(
            name: "CBenchPeers",
            dependencies: ["CExiv2"],
            path: "Benchmarks/CBenchPeers",
            linkerSettings: [.linkedLibrary("turbojpeg"), .linkedLibrary("sodium")]),

        // MARK: The system layer: file descriptors, paths, atomic writes, locks, application
        // folders, format sniffing, hashes; the only place a platform module is imported.
        .target(
            name: "CMemoraSystem",
            linkerSettings: [.linkedLibrary("crypto", .when(platforms: [.linux]))]),
        .target(name: "MemoraSystem", dependencies: ["CMemoraSystem"], swiftSettings: strictSwift),
        // The one database idiom (GRDB records, instants in milliseconds, SQLite's errors) that the
        // caption database, the photo index and the vault catalogue share. Not a product; `package` API.
        .target(
            name: "MemoraDatabase", dependencies: ["MemoraSystem", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift),

        // The one HTTP transport (requests, answers, upload progress, redacted addresses) that the caption
        // generators, the sync client and the hub client share; the only importer of FoundationNetworking.
        .target(name: "MemoraHTTP", dependencies: ["MemoraSystem"], swiftSettings: strictSwift),

        // MARK: Leaf modules (they import none of our other modules but the system layer).
        .target(
            name: "ImageKit", dependencies: ["MemoraSystem", "CTurboJPEG", "CJPEG", "CPNG", "CWebP", "CTIFF", "CHeif"],
            swiftSettings: strictSwift),
        .target(name: "MetadataKit", dependencies: ["MemoraSystem", "CExiv2", "CExif", "CZlib", "CDeflate"], swiftSettings: strictSwift),
        // On-device vision: faces (dlib), scenes (ONNX Runtime, loaded at run time), clustering.
        // CVisionKernels: DBSCAN's dot products for AVX2 and AVX-512, chosen at run time (C: Swift
        // cannot compile one function for a wider instruction set).
        .target(name: "CVisionKernels"),
        // What every vision engine shares, without one: the protocols (FaceAnalyzing, SceneAnalyzing,
        // TextReading) and their values, FaceDistance, DBSCAN with its kernels, the scene nouns and
        // themes. PhotoIndex builds on this alone, so a program that indexes links no dlib or ONNX Runtime.
        .target(name: "PhotoVisionCore", dependencies: ["MemoraSystem", "ImageKit", "CVisionKernels"], swiftSettings: strictSwift),
        .target(name: "PhotoVision", dependencies: ["MemoraSystem", "ImageKit", "PhotoVisionCore", "CDlib", "CONNXRuntime"], swiftSettings: strictSwift),
        .target(
            name: "VaultCrypto",
            dependencies: ["MemoraSystem", "MemoraDatabase", "CSodium", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift),

        // Sync (Docs/Sync.md): the wire protocol, the collections' schema and validation, and the
        // offline-first client (outbox, replica, push and pull) that MemoraCore and any app use.
        .target(
            name: "MemoraSync",
            dependencies: ["MemoraSystem", "MemoraDatabase", "MemoraHTTP", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift),

        // MARK: Composition.
        .target(
            name: "PhotoIndex",
            dependencies: [
                "MemoraSystem", "MemoraDatabase", "MetadataKit", "ImageKit", "PhotoVisionCore", "CFreeType", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift),
        // Certificate pinning for the cloud caption endpoints: MemoraHTTP's transport over
        // AsyncHTTPClient and swift-nio-ssl for pinned hosts, with the roots Memora ships.
        .target(
            name: "MemoraPinning",
            dependencies: [
                "MemoraSystem", "MemoraHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSwift),
        .target(
            name: "MemoraCore",
            dependencies: [
                "MemoraSystem", "MemoraDatabase", "MemoraHTTP", "MetadataKit", "VaultCrypto", "PhotoVisionCore", "PhotoVision", "PhotoIndex", "ImageKit", "MemoraSync",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift),

        // Test support for users of MemoraCore: loopback model servers speaking the
        // Ollama, OpenAI and Gemini wire formats, a manual clock, a controllable monitor. No server:
        // an app's tests that fake a model server link only what captioning needs (NIO only
        // through MemoraCore's pinned cloud transport).
        .target(
            name: "MemoraTesting",
            dependencies: [
                "MemoraSystem", "MemoraCore",
                .product(name: "FlyingFox", package: "FlyingFox"),
                .product(name: "FlyingSocks", package: "FlyingFox"),
            ],
            swiftSettings: strictSwift),
        // Test support for sync: a restartable memora-server in the process, a faulty network over
        // MemoraHTTP's transport, and the convergence simulation the tests and the bench run
        // (its seeded generator is PhotoIndex's).
        .target(
            name: "MemoraSyncTesting",
            dependencies: ["MemoraSystem", "MemoraHTTP", "MemoraSync", "MemoraServer"],
            swiftSettings: strictSwift),

        // The sync server's library (routes, authentication, rate limits, storage); memora-server runs it.
        // FFmpeg (libavformat, libavcodec, libswscale): a video's or voice note's duration and a video's poster frame.
        .target(
            name: "CFFmpeg",
            linkerSettings: [.linkedLibrary("avformat"), .linkedLibrary("avcodec"), .linkedLibrary("swscale"), .linkedLibrary("avutil")]),

        // libqrencode: the hub's pairing QR code.
        .systemLibrary(name: "CQREncode", pkgConfig: "libqrencode"),

        // The Memory Palace collector's library (Docs/Hub.md): the hub's wire types and HubClient.
        .target(name: "MemoraHub", dependencies: ["MemoraSystem", "MemoraHTTP", "MemoraSync", "ImageKit", "MetadataKit", "PhotoVisionCore"], swiftSettings: strictSwift),

        .target(
            name: "MemoraServer",
            dependencies: [
                "MemoraSystem", "MemoraDatabase", "MemoraHTTP", "MemoraSync", "MemoraHub", "ImageKit", "MetadataKit", "CQREncode", "CFFmpeg", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift),

        // The demo (`memora demo`, `make demo`): sample libraries written by the real encoders, the main
        // job on them, and the sync and hub demos on a loopback server. Not a product: no library ships it.
        .target(
            name: "MemoraDemo",
            dependencies: ["MemoraSystem", "ImageKit", "MetadataKit", "VaultCrypto", "PhotoVisionCore", "PhotoVision", "PhotoIndex", "MemoraCore", "MemoraSync", "MemoraHub", "MemoraServer"],
            swiftSettings: strictSwift),

        // MARK: Front ends.
        .executableTarget(
            name: "memora-server",
            dependencies: [
                "MemoraServer", "MemoraSystem", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift),
        .executableTarget(
            name: "memora",
            dependencies: [
                "MemoraSystem", "ImageKit", "MetadataKit", "VaultCrypto", "PhotoVisionCore", "PhotoVision", "PhotoIndex", "MemoraPinning", "MemoraCore", "MemoraSync", "MemoraHub", "MemoraServer",
                "MemoraDemo", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSwift),
        .executableTarget(
            name: "memora-bench",
            dependencies: [
                "MemoraSystem", "ImageKit", "MetadataKit", "VaultCrypto", "PhotoVisionCore", "PhotoVision", "PhotoIndex", "MemoraCore", "MemoraTesting",
                "MemoraSync", "MemoraHub", "MemoraServer", "MemoraHTTP", "MemoraSyncTesting", "MemoraDemo", "CBenchPeers", .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/memora-bench",
            swiftSettings: strictSwift),
        // memora-bench's streaming-memory probe: a process that links VaultCrypto alone.
        .executableTarget(
            name: "loca-memory-probe", dependencies: ["VaultCrypto"],
            path: "Benchmarks/loca-memory-probe",
            swiftSettings: strictSwift),

        // scripts/check-linkage.sh's second program: one that links MetadataKit alone.
        .executableTarget(
            name: "metadata-linkage-probe", dependencies: ["MetadataKit"],
            path: "Benchmarks/metadata-linkage-probe",
            swiftSettings: strictSwift),

        // And its third: one that links PhotoIndex (and so PhotoVisionCore) without the vision engines.
        .executableTarget(
            name: "index-linkage-probe", dependencies: ["PhotoIndex"],
            path: "Benchmarks/index-linkage-probe",
            swiftSettings: strictSwift),

        // And its fourth: one that links MemoraCore alone, without a TLS stack (no SwiftNIO, no BoringSSL).
        .executableTarget(
            name: "core-linkage-probe", dependencies: ["MemoraCore"],
            path: "Benchmarks/core-linkage-probe",
            swiftSettings: strictSwift),

        // MARK: Tests (Swift Testing), one target per module.
        // Fixture builders every test target shares (byte orders, TIFF/EXIF blocks, JPEG segments, temporary folders).
        .target(name: "TestSupport", path: "Tests/TestSupport", swiftSettings: strictSwift),
        .testTarget(name: "MemoraSystemTests", dependencies: ["TestSupport", "MemoraSystem"], swiftSettings: strictSwift),
        .testTarget(name: "ReadmeTests", dependencies: ["ImageKit", "MetadataKit", "VaultCrypto", "PhotoIndex", "MemoraCore"], swiftSettings: strictSwift),
        .testTarget(
            name: "MemoraDatabaseTests", dependencies: ["TestSupport", "MemoraDatabase", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift),
        .testTarget(
            name: "MemoraHTTPTests",
            dependencies: ["MemoraHTTP", "MemoraSystem", .product(name: "FlyingFox", package: "FlyingFox"), .product(name: "FlyingSocks", package: "FlyingFox")],
            swiftSettings: strictSwift),
        .testTarget(name: "ImageKitTests", dependencies: ["TestSupport", "ImageKit"], swiftSettings: strictSwift),
        .testTarget(name: "MetadataKitTests", dependencies: ["TestSupport", "MetadataKit", "ImageKit", "MemoraSystem"], swiftSettings: strictSwift),
        .testTarget(name: "VaultCryptoTests", dependencies: ["TestSupport", "VaultCrypto", "MemoraSystem", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: strictSwift),
        .testTarget(
            name: "MemoraPinningTests",
            dependencies: [
                "TestSupport", "MemoraPinning", "MemoraHTTP", .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSwift),
        .testTarget(name: "PhotoVisionCoreTests", dependencies: ["PhotoVisionCore", "MemoraSystem"], swiftSettings: strictSwift),
        .testTarget(name: "PhotoVisionTests", dependencies: ["TestSupport", "PhotoVision", "PhotoVisionCore", "ImageKit", "MemoraSystem"], swiftSettings: strictSwift),
        .testTarget(name: "PhotoIndexTests", dependencies: ["TestSupport", "PhotoIndex", "PhotoVision", "PhotoVisionCore", "ImageKit", "MemoraSystem", .product(name: "GRDB", package: "GRDB.swift")], swiftSettings: strictSwift),
        .testTarget(
            name: "MemoraCoreTests", dependencies: ["TestSupport", "MemoraCore", "MemoraTesting", "MemoraSystem", "MemoraHTTP", "VaultCrypto", "MemoraDemo", "MetadataKit", "ImageKit", "PhotoIndex", "PhotoVisionCore", "PhotoVision", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: strictSwift),
        // What the server, hub and sync tests share: a memora-server on loopback over SQLite or
        // PostgreSQL (TestServer), a raw client, the OpenAPI check, paired hub clients.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "MemoraSystem", "MemoraHTTP", "MemoraSync", "MemoraHub", "MemoraServer", "MemoraSyncTesting",
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/ServerTestSupport", swiftSettings: strictSwift),
        // The tests that run real servers on loopback (SQLite and PostgreSQL) run on their own after the
        // others (the Makefile): beside the CPU-bound vision and indexing tests, their servers would wait.
        .testTarget(
            name: "MemoraSyncTests",
            dependencies: ["ServerTestSupport", "TestSupport", "MemoraSystem", "MemoraSync", "MemoraServer", "MemoraSyncTesting"],
            swiftSettings: strictSwift),
        // MemoraCore's sync job (`SyncJob`) against a real server: with the server tests, not with
        // MemoraCoreTests, for the reason above.
        .testTarget(
            name: "MemoraCoreSyncTests",
            dependencies: [
                "ServerTestSupport", "TestSupport", "MemoraSystem", "ImageKit", "MemoraSync", "MemoraServer", "MemoraCore",
                "MemoraDemo", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "MemoraServerTests",
            dependencies: [
                "ServerTestSupport", "TestSupport", "MemoraSystem", "ImageKit", "MemoraHTTP", "MemoraSync", "MemoraHub", "MemoraServer",
                "MemoraSyncTesting", "MemoraCore", .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSwift),
        .testTarget(
            name: "MemoraHubTests",
            dependencies: [
                "ServerTestSupport", "TestSupport", "MemoraSystem", "ImageKit", "MetadataKit", "PhotoVisionCore", "PhotoVision", "MemoraHTTP", "MemoraSync",
                "MemoraHub", "MemoraServer",
            ],
            swiftSettings: strictSwift),
        // End to end: runs the built `memora` on generated photos and checks exit codes, stdout, stderr and JSON.
        .testTarget(
            name: "MemoraCLITests", dependencies: ["TestSupport", "memora", "MemoraSystem", "ImageKit", "MetadataKit", "MemoraCore", "MemoraServer", "MemoraSyncTesting"],
            swiftSettings: strictSwift),
    ],
    cxxLanguageStandard: .cxx17
)
