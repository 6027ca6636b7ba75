// The one file that imports CBenchPeers: the peers' C entry points as Swift calls.
import CBenchPeers

/// Raw libturbojpeg, libsodium and libexiv2, called from C: the limits and peers our figures are compared with.
enum RawPeers {
    /// libexiv2 reading every tag of an image held in memory, container and all (its own
    /// format detection and, for HEIF, its own BMFF parser); the number of tags it found.
    static func libexiv2TagCount(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { Int(bench_libexiv2_tag_count($0.baseAddress, $0.count)) }
    }

    /// A libturbojpeg decompressor, reused across calls like a careful C program would.
    final class TurboJPEG {
        private let handle = bench_turbojpeg_create()
        deinit { bench_turbojpeg_destroy(handle) }

        /// Header read + decode into a freshly allocated buffer (freed before returning).
        func decodeIntoNewBuffer(_ jpeg: [UInt8]) -> Bool {
            jpeg.withUnsafeBufferPointer { bench_turbojpeg_decode_rgb_new_buffer(handle, $0.baseAddress, $0.count) } == 0
        }

        /// Decode into the caller's reused `output` buffer.
        func decode(_ jpeg: [UInt8], into output: inout [UInt8], width: Int, height: Int) -> Bool {
            jpeg.withUnsafeBufferPointer { source in
                output.withUnsafeMutableBufferPointer { target in
                    bench_turbojpeg_decode_rgb(handle, source.baseAddress, source.count, target.baseAddress, Int32(width), Int32(height))
                }
            } == 0
        }

        /// DCT-scaled decode at 1/`denominator` with fast DCT and upsampling, into a new buffer.
        func decodeScaled(_ jpeg: [UInt8], denominator: Int) -> Bool {
            jpeg.withUnsafeBufferPointer { bench_turbojpeg_decode_scaled(handle, $0.baseAddress, $0.count, Int32(denominator)) } == 0
        }
    }

    /// One libsodium AEAD call over the whole buffer (1 = AES-256-GCM, 2 = ChaCha20-Poly1305).
    static func seal(algorithm: UInt8, _ plaintext: [UInt8], into ciphertext: inout [UInt8], tag: inout [UInt8]) -> Bool {
        plaintext.withUnsafeBufferPointer { p in
            ciphertext.withUnsafeMutableBufferPointer { c in
                tag.withUnsafeMutableBufferPointer { t in
                    bench_sodium_seal(Int32(algorithm), p.baseAddress, p.count, c.baseAddress, t.baseAddress)
                }
            }
        } == 0
    }

    /// `seal` into a buffer the call allocates and frees (the same work as returning new data).
    static func sealIntoNewBuffer(algorithm: UInt8, _ plaintext: [UInt8]) -> Bool {
        plaintext.withUnsafeBufferPointer { bench_sodium_seal_new_buffer(Int32(algorithm), $0.baseAddress, $0.count) } == 0
    }

    /// `open` into a buffer the call allocates and frees.
    static func openIntoNewBuffer(algorithm: UInt8, _ ciphertext: [UInt8], tag: [UInt8]) -> Bool {
        ciphertext.withUnsafeBufferPointer { c in
            tag.withUnsafeBufferPointer { t in bench_sodium_open_new_buffer(Int32(algorithm), c.baseAddress, c.count, t.baseAddress) }
        } == 0
    }

    /// Pins the process to one CPU, or restores its affinity.
    static func useSingleCPU(_ single: Bool) -> Bool {
        bench_set_single_cpu(single ? 1 : 0) == 0
    }

    /// Verifies and decrypts what `seal` produced.
    static func open(algorithm: UInt8, _ ciphertext: [UInt8], tag: [UInt8], into plaintext: inout [UInt8]) -> Bool {
        ciphertext.withUnsafeBufferPointer { c in
            tag.withUnsafeBufferPointer { t in
                plaintext.withUnsafeMutableBufferPointer { o in
                    bench_sodium_open(Int32(algorithm), c.baseAddress, c.count, t.baseAddress, o.baseAddress)
                }
            }
        } == 0
    }
}
