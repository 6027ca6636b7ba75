/// Official test vectors, copied from the RFCs and checked against an independent implementation.
///
/// - HKDF-SHA256: RFC 5869 Appendix A, test cases 1-3 (A.1-A.3).
/// - AEAD_CHACHA20_POLY1305: RFC 8439 section 2.8.2 and Appendix A.5.
///
/// Every value is a lowercase hex string without spaces; "" means zero bytes.
/// All vectors were verified with Python `cryptography` (HKDF, HKDFExpand, HMAC-SHA256, ChaCha20Poly1305).
enum RFCVectors {
    struct HKDFCase: Sendable {
        let name: String
        let ikm: String
        let salt: String
        let info: String
        let length: Int
        let prk: String
        let okm: String
    }

    /// RFC 5869 Appendix A, SHA-256 cases. `length` is L; `prk` is the HKDF-Extract output; `okm` is the final output.
    static let hkdf: [HKDFCase] = [
        HKDFCase(
            name: "RFC 5869 A.1",
            ikm: "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            salt: "000102030405060708090a0b0c",
            info: "f0f1f2f3f4f5f6f7f8f9",
            length: 42,
            prk: "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5",
            okm: "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf"
                + "34007208d5b887185865"
        ),
        HKDFCase(
            name: "RFC 5869 A.2",
            ikm: "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
                + "202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f"
                + "404142434445464748494a4b4c4d4e4f",
            salt: "606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f"
                + "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f"
                + "a0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
            info: "b0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecf"
                + "d0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeef"
                + "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
            length: 82,
            prk: "06a6b88c5853361a06104c9ceb35b45cef760014904671014a193f40c15fc244",
            okm: "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c"
                + "59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71"
                + "cc30c58179ec3e87c14c01d5c1f3434f1d87"
        ),
        HKDFCase(
            name: "RFC 5869 A.3",
            ikm: "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            salt: "",
            info: "",
            length: 42,
            prk: "19ef24a32c717b167f33a91d6f648bdf96596776afdb6377ac434c1c293ccb04",
            okm: "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
                + "9d201395faa4b61a96c8"
        ),
    ]

    struct AEADCase: Sendable {
        let name: String
        let key: String
        let nonce: String
        let aad: String
        let plaintext: String
        let ciphertext: String
        let tag: String
    }

    /// RFC 8439 AEAD_CHACHA20_POLY1305. `nonce` is the full 12-byte nonce; `ciphertext` excludes the 16-byte `tag`.
    static let chacha20Poly1305: [AEADCase] = [
        // Section 2.8.2: nonce = 32-bit constant 07 00 00 00 || IV 40..47.
        // Plaintext (114 bytes): "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for
        // the future, sunscreen would be it."
        AEADCase(
            name: "RFC 8439 2.8.2",
            key: "808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9f",
            nonce: "070000004041424344454647",
            aad: "50515253c0c1c2c3c4c5c6c7",
            plaintext: "4c616469657320616e642047656e746c656d656e206f662074686520636c6173"
                + "73206f66202739393a204966204920636f756c64206f6666657220796f75206f"
                + "6e6c79206f6e652074697020666f7220746865206675747572652c2073756e73"
                + "637265656e20776f756c642062652069742e",
            ciphertext: "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d6"
                + "3dbea45e8ca9671282fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b36"
                + "92ddbd7f2d778b8c9803aee328091b58fab324e4fad675945585808b4831d7bc"
                + "3ff4def08e4b7a9de576d26586cec64b6116",
            tag: "1ae10b594f09e26a7e902ecbd0600691"
        ),
        // Appendix A.5 (decryption example). Plaintext (265 bytes) is the Internet-Draft boilerplate sentence
        // "Internet-Drafts are draft documents valid for a maximum of six months ...", ending with
        // /“work in progress./” (UTF-8 curly quotes e2 80 9c / e2 80 9d).
        AEADCase(
            name: "RFC 8439 A.5",
            key: "1c9240a5eb55d38af333888604f6b5f0473917c1402b80099dca5cbc207075c0",
            nonce: "000000000102030405060708",
            aad: "f33388860000000000004e91",
            plaintext: "496e7465726e65742d4472616674732061726520647261667420646f63756d65"
                + "6e74732076616c696420666f722061206d6178696d756d206f6620736978206d"
                + "6f6e74687320616e64206d617920626520757064617465642c207265706c6163"
                + "65642c206f72206f62736f6c65746564206279206f7468657220646f63756d65"
                + "6e747320617420616e792074696d652e20497420697320696e617070726f7072"
                + "6961746520746f2075736520496e7465726e65742d4472616674732061732072"
                + "65666572656e6365206d6174657269616c206f7220746f206369746520746865"
                + "6d206f74686572207468616e206173202fe2809c776f726b20696e2070726f67"
                + "726573732e2fe2809d",
            ciphertext: "64a0861575861af460f062c79be643bd5e805cfd345cf389f108670ac76c8cb2"
                + "4c6cfc18755d43eea09ee94e382d26b0bdb7b73c321b0100d4f03b7f355894cf"
                + "332f830e710b97ce98c8a84abd0b948114ad176e008d33bd60f982b1ff37c855"
                + "9797a06ef4f0ef61c186324e2b3506383606907b6a7c02b0f9f6157b53c867e4"
                + "b9166c767b804d46a59b5216cde7a4e99040c5a40433225ee282a1b0a06c523e"
                + "af4534d7f83fa1155b0047718cbc546a0d072b04b3564eea1b422273f548271a"
                + "0bb2316053fa76991955ebd63159434ecebb4e466dae5a1073a6727627097a10"
                + "49e617d91d361094fa68f0ff77987130305beaba2eda04df997b714d6c6f2c29"
                + "a6ad5cb4022b02709b",
            tag: "eead9d67890cbb22392336fea1851f38"
        ),
    ]
}

/// Decodes a hex string ("" gives []); traps on malformed input (test constants only).
func hexBytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count % 2 == 0, "hex string has odd length")
    func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: preconditionFailure("invalid hex digit in test vector")
        }
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
        bytes.append(nibble(digits[index]) << 4 | nibble(digits[index + 1]))
        index += 2
    }
    return bytes
}
