import Foundation

/// An XMP packet parsed as plain XML, with the byte range of every tag, attribute and text, so
/// that it can be read as exiftool reads it (every `rdf:Description`, `rdf:about`, a property
/// present twice keeps both values) and edited as text (``XMPTextEditor``): Adobe's XMP toolkit,
/// which libexiv2 uses, rejects some packets that other readers accept, turns `rdf:about` into
/// `xmpMM:InstanceID` and merges duplicate properties when it re-serialises.
///
/// Only what XMP needs is accepted: elements, attributes, character and the five predefined
/// entity references, comments, processing instructions and CDATA. A document type
/// declaration, a tag that is not closed, or bytes that are not UTF-8 are refused
/// (``XMPDocument/Problem``), and callers fall back to the toolkit.
struct XMPDocument: Sendable {
    /// Why a packet was not parsed.
    struct Problem: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// An attribute: its name, resolved namespace, value and where it is.
    struct Attribute: Sendable {
        var prefix: String
        var local: String
        /// The namespace URI, nil for an unprefixed attribute or an unbound prefix.
        var namespace: String?
        var value: String
        /// From the whitespace before the name to the closing quote.
        var range: Range<Int>
        /// Whether this attribute declares a namespace (`xmlns` or `xmlns:p`).
        var isNamespaceDeclaration: Bool { (prefix.isEmpty && local == "xmlns") || prefix == "xmlns" }
    }

    /// An element: its name, attributes, children and where its tags are.
    struct Element: Sendable {
        var prefix: String
        var local: String
        /// The namespace URI, nil when the prefix is not bound.
        var namespace: String?
        var attributes: [Attribute]
        /// `<…>` or `<…/>`.
        var startTag: Range<Int>
        /// `</…>`; nil for an empty-element tag.
        var endTag: Range<Int>?
        /// Indices of the child elements in ``XMPDocument/elements``, in order.
        var children: [Int] = []
        /// The element's own character data (entities decoded, CDATA included), its children's excluded.
        var text: String = ""
        /// The namespace bindings in scope inside the element (prefix → URI; "" is the default namespace).
        var bindings: [String: String]
        /// The element's index in ``XMPDocument/elements`` of its parent; nil for the root.
        var parent: Int?

        /// The qualified name as written.
        var qualifiedName: String { prefix.isEmpty ? local : prefix + ":" + local }
        /// Between the start and end tags (empty, at the start tag's end, for an empty-element tag).
        var content: Range<Int> { startTag.upperBound..<(endTag?.lowerBound ?? startTag.upperBound) }
        /// From the start tag's `<` to the end tag's `>`.
        var whole: Range<Int> { startTag.lowerBound..<(endTag ?? startTag).upperBound }
        /// Whether it is the element `local` in the namespace `namespace`.
        func `is`(_ namespace: String, _ local: String) -> Bool { self.namespace == namespace && self.local == local }
        /// The value of the attribute `local` in `namespace` (nil namespace: unprefixed).
        func attribute(_ namespace: String?, _ local: String) -> String? {
            attributes.first { $0.namespace == namespace && $0.local == local && !$0.isNamespaceDeclaration }?.value
        }
    }

    static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    static let xml = "http://www.w3.org/XML/1998/namespace"

    /// The packet's bytes.
    let bytes: [UInt8]
    /// Every element, in document order; the first is the root.
    private(set) var elements: [Element] = []
    /// The `rdf:RDF` element, when there is one.
    private(set) var rdfRoot: Int?

    /// Parses `bytes` (UTF-8, with or without a byte order mark).
    init(_ bytes: [UInt8]) throws(Problem) {
        self.bytes = bytes
        guard String(validating: bytes, as: UTF8.self) != nil else { throw Problem(description: "the packet is not UTF-8") }
        try parse()
        rdfRoot = elements.indices.first { elements[$0].is(Self.rdf, "RDF") }
    }

    /// The top-level `rdf:Description` elements (the children of `rdf:RDF`).
    var descriptions: [Int] {
        guard let rdfRoot else { return [] }
        return elements[rdfRoot].children.filter { elements[$0].is(Self.rdf, "Description") }
    }

    /// One property value as a reader sees it: a path (namespace and name of the property, then
    /// of each field, `[n]` for the n-th array item, `[lang]` for a language item) and its text.
    struct Value: Sendable, Hashable {
        /// The top-level property: its namespace URI and local name.
        var namespace: String
        var name: String
        /// The rest of the path below the property ("" for a simple value).
        var path: String
        var text: String
        /// The path in one string, for messages and comparison.
        var key: String { namespace + name + path }
    }

    /// Every property value of every top-level description, in document order, including the
    /// descriptions' non-empty `rdf:about` (as exiftool lists it); a property written twice gives two values.
    var values: [Value] {
        var result: [Value] = []
        for description in descriptions {
            let element = elements[description]
            if let about = element.attribute(Self.rdf, "about"), !about.isEmpty {  // exiftool lists a non-empty one only
                result.append(Value(namespace: Self.rdf, name: "about", path: "", text: about))
            }
            for attribute in element.attributes where isProperty(attribute) {
                result.append(Value(namespace: attribute.namespace ?? "", name: attribute.local, path: "", text: attribute.value))
            }
            for child in element.children {
                let property = elements[child]
                flatten(child, into: &result, namespace: property.namespace ?? "", name: property.local, path: "")
            }
        }
        return result
    }

    /// Whether an attribute of a description or property element is itself a property (not RDF syntax, not `xml:`, not a declaration).
    func isProperty(_ attribute: Attribute) -> Bool {
        !attribute.isNamespaceDeclaration && attribute.namespace != Self.rdf && attribute.namespace != Self.xml
    }

    private func flatten(_ index: Int, into result: inout [Value], namespace: String, name: String, path: String) {
        let element = elements[index]
        var path = path
        if let language = element.attribute(Self.xml, "lang") { path += "[\(language.lowercased())]" }
        // Qualifiers and fields written as attributes.
        for attribute in element.attributes where isProperty(attribute) {
            result.append(Value(namespace: namespace, name: name, path: path + "/" + (attribute.namespace ?? "") + attribute.local, text: attribute.value))
        }
        if let resource = element.attribute(Self.rdf, "resource") {
            result.append(Value(namespace: namespace, name: name, path: path, text: resource))
        }
        guard !element.children.isEmpty else {
            if element.attribute(Self.rdf, "resource") == nil, element.attributes.allSatisfy({ !isProperty($0) }) || !element.text.isEmpty {
                result.append(Value(namespace: namespace, name: name, path: path, text: element.text))
            }
            return
        }
        for child in element.children {
            let item = elements[child]
            if item.namespace == Self.rdf, ["Bag", "Seq", "Alt"].contains(item.local) {
                for (position, li) in item.children.enumerated() {
                    let entry = elements[li]
                    let marker = entry.attribute(Self.xml, "lang") == nil ? "[\(position + 1)]" : ""
                    flatten(li, into: &result, namespace: namespace, name: name, path: path + marker)
                }
            } else if item.is(Self.rdf, "Description") {
                flatten(child, into: &result, namespace: namespace, name: name, path: path)
            } else {
                flatten(child, into: &result, namespace: namespace, name: name, path: path + "/" + (item.namespace ?? "") + item.local)
            }
        }
    }

    // MARK: - Parsing

    private mutating func parse() throws(Problem) {
        var position = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        var open: [Int] = []
        while position < bytes.count {
            if bytes[position] != UInt8(ascii: "<") {
                let end = firstIndex(of: UInt8(ascii: "<"), from: position) ?? bytes.count
                let text = try decodeText(position..<end)
                if let current = open.last {
                    elements[current].text += text
                } else if !text.allSatisfy({ $0.isWhitespace || $0 == "\0" }) {
                    throw Problem(description: "text outside the root element")
                }
                position = end
            } else if starts("<?", at: position) {
                position = try skip(past: "?>", from: position + 2)
            } else if starts("<!--", at: position) {
                position = try skip(past: "-->", from: position + 4)
            } else if starts("<![CDATA[", at: position) {
                let end = try skip(past: "]]>", from: position + 9)
                guard let current = open.last else { throw Problem(description: "CDATA outside the root element") }
                elements[current].text += String(decoding: bytes[(position + 9)..<(end - 3)], as: UTF8.self)
                position = end
            } else if starts("<!", at: position) {
                throw Problem(description: "a document type declaration")
            } else if starts("</", at: position) {
                var cursor = position + 2
                let name = readName(&cursor)
                skipWhitespace(&cursor)
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ">"), let current = open.last,
                      elements[current].qualifiedName == name else {
                    throw Problem(description: "an end tag that does not match its start tag at byte \(position)")
                }
                elements[current].endTag = position..<(cursor + 1)
                open.removeLast()
                position = cursor + 1
            } else {
                if open.isEmpty, !elements.isEmpty { throw Problem(description: "a second root element") }
                position = try startTag(at: position, open: &open)
            }
        }
        guard open.isEmpty, !elements.isEmpty else { throw Problem(description: open.isEmpty ? "no element" : "an element that is not closed") }
    }

    private mutating func startTag(at start: Int, open: inout [Int]) throws(Problem) -> Int {
        var cursor = start + 1
        let name = readName(&cursor)
        guard !name.isEmpty else { throw Problem(description: "a malformed tag at byte \(start)") }
        var attributes: [(name: String, value: String, range: Range<Int>)] = []
        while true {
            let attributeStart = cursor
            skipWhitespace(&cursor)
            guard cursor < bytes.count else { throw Problem(description: "a tag that is not closed") }
            if bytes[cursor] == UInt8(ascii: ">") || starts("/>", at: cursor) { break }
            guard cursor > attributeStart else { throw Problem(description: "a malformed attribute at byte \(cursor)") }
            let attributeName = readName(&cursor)
            skipWhitespace(&cursor)
            guard !attributeName.isEmpty, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else {
                throw Problem(description: "a malformed attribute at byte \(cursor)")
            }
            cursor += 1
            skipWhitespace(&cursor)
            guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") else {
                throw Problem(description: "an attribute value without quotes at byte \(cursor)")
            }
            let quote = bytes[cursor]
            guard let close = firstIndex(of: quote, from: cursor + 1) else { throw Problem(description: "an attribute value that is not closed") }
            let raw = (cursor + 1)..<close
            guard !bytes[raw].contains(UInt8(ascii: "<")) else { throw Problem(description: "'<' in an attribute value") }
            guard !attributes.contains(where: { $0.name == attributeName }) else { throw Problem(description: "an attribute written twice in one tag") }
            attributes.append((attributeName, try decodeText(raw), attributeStart..<(close + 1)))
            cursor = close + 1
        }
        let isEmpty = bytes[cursor] == UInt8(ascii: "/")
        let end = cursor + (isEmpty ? 2 : 1)
        var bindings = open.last.map { elements[$0].bindings } ?? ["xml": Self.xml]
        for attribute in attributes {
            if attribute.name == "xmlns" { bindings[""] = attribute.value }
            if attribute.name.hasPrefix("xmlns:") { bindings[String(attribute.name.dropFirst(6))] = attribute.value }
        }
        func split(_ name: String) -> (String, String) {
            guard let colon = name.firstIndex(of: ":") else { return ("", name) }
            return (String(name[..<colon]), String(name[name.index(after: colon)...]))
        }
        let (prefix, local) = split(name)
        let element = Element(
            prefix: prefix, local: local, namespace: bindings[prefix],
            attributes: attributes.map { attribute in
                let (attributePrefix, attributeLocal) = split(attribute.name)
                return Attribute(prefix: attributePrefix, local: attributeLocal,
                                 namespace: attributePrefix.isEmpty ? nil : bindings[attributePrefix],
                                 value: attribute.value, range: attribute.range)
            },
            startTag: start..<end, endTag: nil, bindings: bindings, parent: open.last)
        elements.append(element)
        let index = elements.count - 1
        if let parent = open.last { elements[parent].children.append(index) }
        if !isEmpty { open.append(index) }
        return end
    }

    private func starts(_ text: StaticString, at position: Int) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return text.withUTF8Buffer { bytes[position..<(position + count)].elementsEqual($0) }
    }

    private func skip(past terminator: StaticString, from position: Int) throws(Problem) -> Int {
        var cursor = position
        while cursor < bytes.count {
            if starts(terminator, at: cursor) { return cursor + terminator.utf8CodeUnitCount }
            cursor += 1
        }
        throw Problem(description: "a comment, processing instruction or CDATA section that is not closed")
    }

    private func firstIndex(of byte: UInt8, from position: Int) -> Int? {
        bytes[min(position, bytes.count)...].firstIndex(of: byte)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private func skipWhitespace(_ cursor: inout Int) {
        while cursor < bytes.count, Self.isWhitespace(bytes[cursor]) { cursor += 1 }
    }

    private func readName(_ cursor: inout Int) -> String {
        let start = cursor
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if Self.isWhitespace(byte) || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "=")
                || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { break }
            cursor += 1
        }
        return String(decoding: bytes[start..<cursor], as: UTF8.self)
    }

    /// Character data with the predefined and numeric references decoded; an unknown reference
    /// (such as `&nbsp;`) is kept as written, as exiftool shows it.
    private func decodeText(_ range: Range<Int>) throws(Problem) -> String {
        let slice = bytes[range]
        guard slice.contains(UInt8(ascii: "&")) else { return String(decoding: slice, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(slice.count)
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            let byte = bytes[cursor]
            guard byte == UInt8(ascii: "&"),
                  let semicolon = bytes[cursor..<min(range.upperBound, cursor + 12)].firstIndex(of: UInt8(ascii: ";")) else {
                output.append(byte)
                cursor += 1
                continue
            }
            let name = String(decoding: bytes[(cursor + 1)..<semicolon], as: UTF8.self)
            let predefined = ["lt": "<", "gt": ">", "amp": "&", "quot": "\"", "apos": "'"]
            var replacement: String?
            if let text = predefined[name] {
                replacement = text
            } else if name.hasPrefix("#x") || name.hasPrefix("#X"), let value = UInt32(name.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(value) {
                replacement = String(Character(scalar))
            } else if name.hasPrefix("#"), let value = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(value) {
                replacement = String(Character(scalar))
            }
            if let replacement {
                output += Array(replacement.utf8)
                cursor = semicolon + 1
            } else {
                output.append(byte)
                cursor += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
