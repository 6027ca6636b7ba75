import Foundation

/// Edits an XMP packet as text: only the elements and attributes of the properties the edit
/// sets or removes change (and a namespace declaration when one is needed); every other byte of
/// the packet stays as it was. This keeps what Adobe's XMP toolkit would lose or refuse when it
/// re-serialises (a packet it rejects although exiftool reads it, `rdf:about` values, a property
/// written twice with two values, formatting and padding) and what other readers see of it.
///
/// Handles a language alternative set in every copy of the property (element or attribute
/// form, in any top-level description) and top-level properties removed by name or prefix.
/// Anything else throws ``Unsupported``, and the caller uses the toolkit instead.
enum XMPTextEditor {
    /// The packet's shape is not one this editor changes safely.
    struct Unsupported: Error, Sendable, CustomStringConvertible {
        var description: String
    }

    /// The namespace URIs of the libexiv2 key prefixes the writer uses, with the prefix to declare for each.
    static let namespaces: [String: (uri: String, prefix: String)] = [
        "dc": ("http://purl.org/dc/elements/1.1/", "dc"),
        "iptc": ("http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/", "Iptc4xmpCore"),
        "iptcExt": ("http://iptc.org/std/Iptc4xmpExt/2008-02-29/", "Iptc4xmpExt"),
        "exif": ("http://ns.adobe.com/exif/1.0/", "exif"),
        "exifEX": ("http://cipa.jp/exif/1.0/", "exifEX"),
        "photoshop": ("http://ns.adobe.com/photoshop/1.0/", "photoshop"),
        "memora": (CaptionWriter.memoraNamespace, "memora"),
    ]

    /// A top-level property named by a libexiv2 key (`Xmp.dc.description`; a trailing `*` matches every name with that start).
    struct PropertyName: Sendable, Hashable {
        var namespace: String
        var preferredPrefix: String
        var name: String
        var isPrefix: Bool

        init(key: String) throws(Unsupported) {
            let parts = key.split(separator: ".", maxSplits: 2).map(String.init)
            guard parts.count == 3, parts[0] == "Xmp", let known = XMPTextEditor.namespaces[parts[1]], !parts[2].contains("/") else {
                throw Unsupported(description: "the key \(key)")
            }
            namespace = known.uri
            preferredPrefix = known.prefix
            isPrefix = parts[2].hasSuffix("*")
            name = isPrefix ? String(parts[2].dropLast()) : parts[2]
        }

        func matches(namespace: String?, local: String) -> Bool {
            namespace == self.namespace && (isPrefix ? local.hasPrefix(name) : local == name)
        }
    }

    /// `packet` with `edits` applied; throws ``Unsupported`` for an empty packet, one that is not
    /// well-formed, or a shape this editor does not change.
    static func apply(_ packet: [UInt8], edits: [XMPEdit]) throws(Unsupported) -> [UInt8] {
        var bytes = packet
        for edit in edits {
            let document: XMPDocument
            do { document = try XMPDocument(bytes) } catch { throw Unsupported(description: "the packet (\(error))") }
            guard document.rdfRoot != nil else { throw Unsupported(description: "a packet without rdf:RDF") }
            var splices: [Splice] = []
            switch edit {
            case .setLanguageItem(let key, let language, let value):
                splices = try setLanguageItem(try PropertyName(key: key), language: language, value: value, in: document)
            case .remove(let key):
                splices = removals(of: try PropertyName(key: key), in: document)
            case .setText(let key, let value):
                splices = try setText(try PropertyName(key: key), value: value, in: document)
            case .removeLanguageItem:
                throw Unsupported(description: "the edit \(edit)")
            }
            bytes = apply(splices, to: bytes)
        }
        return keepingSize(bytes, of: packet)
    }

    /// Replace `range` with `text`.
    struct Splice {
        var range: Range<Int>
        var text: [UInt8]
    }

    private static func apply(_ splices: [Splice], to bytes: [UInt8]) -> [UInt8] {
        var result = bytes
        // From the end, so earlier ranges keep their positions; insertions at one point keep their order.
        for splice in splices.enumerated().sorted(by: { ($0.element.range.lowerBound, $0.offset) > ($1.element.range.lowerBound, $1.offset) }) {
            result.replaceSubrange(splice.element.range, with: splice.element.text)
        }
        return result
    }

    /// Character data escaped for element content.
    static func escaped(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): output += Array("&amp;".utf8)
            case UInt8(ascii: "<"): output += Array("&lt;".utf8)
            case UInt8(ascii: ">"): output += Array("&gt;".utf8)
            default: output.append(byte)
            }
        }
        return output
    }

    /// The prefix bound to the RDF namespace inside `element`.
    private static func rdfPrefix(_ element: XMPDocument.Element) throws(Unsupported) -> String {
        guard let prefix = element.bindings.filter({ $0.value == XMPDocument.rdf && !$0.key.isEmpty }).keys.sorted().first else {
            throw Unsupported(description: "RDF without a prefix")
        }
        return prefix
    }

    private static func languageAlternative(rdf: String, language: String, value: String) -> [UInt8] {
        Array("<\(rdf):Alt><\(rdf):li xml:lang=\"".utf8) + escaped(language) + Array("\">".utf8) + escaped(value)
            + Array("</\(rdf):li></\(rdf):Alt>".utf8)
    }

    /// Sets the `language` item of every copy of `property`, or adds the property to the first description.
    private static func setLanguageItem(_ property: PropertyName, language: String, value: String,
                                        in document: XMPDocument) throws(Unsupported) -> [Splice] {
        var splices: [Splice] = []
        var found = false
        for description in document.descriptions {
            let element = document.elements[description]
            // The attribute form (a bare string, which exiftool reads) becomes the element form.
            for attribute in element.attributes where property.matches(namespace: attribute.namespace, local: attribute.local) {
                splices.append(Splice(range: attribute.range, text: []))
                splices += try inserted(property, value: languageAlternative(rdf: try rdfPrefix(element), language: language, value: value),
                                        into: description, of: document)
                found = true
            }
            for child in element.children where property.matches(namespace: document.elements[child].namespace, local: document.elements[child].local) {
                splices += try setLanguageItem(of: child, language: language, value: value, in: document)
                found = true
            }
        }
        if !found {
            guard let first = document.descriptions.first(where: { document.elements[$0].bindings.values.contains(property.namespace) })
                    ?? document.descriptions.first else {
                return try newDescription(property, language: language, value: value, in: document)
            }
            splices += try inserted(property, value: languageAlternative(rdf: try rdfPrefix(document.elements[first]), language: language, value: value),
                                    into: first, of: document)
        }
        return splices
    }

    /// Sets one language item of the property element at `index`.
    private static func setLanguageItem(of index: Int, language: String, value: String, in document: XMPDocument) throws(Unsupported) -> [Splice] {
        let property = document.elements[index]
        let rdf = try rdfPrefix(property)
        guard property.attributes.allSatisfy({ $0.isNamespaceDeclaration }) else {
            throw Unsupported(description: "\(property.qualifiedName) with attributes")
        }
        guard !property.children.isEmpty else {
            // A bare string (or an empty element) becomes a language alternative.
            let alternative = languageAlternative(rdf: rdf, language: language, value: value)
            if property.endTag == nil {
                let close = Array(">".utf8) + alternative + Array("</\(property.qualifiedName)>".utf8)
                return [Splice(range: (property.startTag.upperBound - 2)..<property.startTag.upperBound, text: close)]
            }
            return [Splice(range: property.content, text: alternative)]
        }
        guard property.children.count == 1, document.elements[property.children[0]].is(XMPDocument.rdf, "Alt") else {
            throw Unsupported(description: "\(property.qualifiedName) that is not a language alternative")
        }
        let alternative = document.elements[property.children[0]]
        let items = alternative.children.filter { document.elements[$0].attribute(XMPDocument.xml, "lang")?.lowercased() == language.lowercased() }
        guard !items.isEmpty else {
            let item = Array("<\(rdf):li xml:lang=\"".utf8) + escaped(language) + Array("\">".utf8) + escaped(value) + Array("</\(rdf):li>".utf8)
            if alternative.endTag == nil {
                let close = Array(">".utf8) + item + Array("</\(alternative.qualifiedName)>".utf8)
                return [Splice(range: (alternative.startTag.upperBound - 2)..<alternative.startTag.upperBound, text: close)]
            }
            // The default item goes first, where readers look for it.
            return [Splice(range: alternative.content.lowerBound..<alternative.content.lowerBound, text: item)]
        }
        return items.map { itemIndex in
            let item = document.elements[itemIndex]
            if item.endTag == nil {
                let close = Array(">".utf8) + escaped(value) + Array("</\(item.qualifiedName)>".utf8)
                return Splice(range: (item.startTag.upperBound - 2)..<item.startTag.upperBound, text: close)
            }
            return Splice(range: item.content, text: escaped(value))
        }
    }

    /// Sets every copy of a simple text property (attribute or element), or adds it to the first description.
    private static func setText(_ property: PropertyName, value: String, in document: XMPDocument) throws(Unsupported) -> [Splice] {
        var splices: [Splice] = []
        for description in document.descriptions {
            let element = document.elements[description]
            for attribute in element.attributes where property.matches(namespace: attribute.namespace, local: attribute.local) {
                // The value between the quotes, whichever quote the attribute uses.
                let quoted = (attribute.range.upperBound - 1)
                let open = document.bytes[attribute.range].firstIndex(of: document.bytes[quoted]) ?? quoted
                guard open < quoted else { throw Unsupported(description: "an attribute without quotes") }
                var text: [UInt8] = []
                for byte in escaped(value) { text += byte == UInt8(ascii: "\"") ? Array("&quot;".utf8) : byte == UInt8(ascii: "'") ? Array("&apos;".utf8) : [byte] }
                splices.append(Splice(range: (open + 1)..<quoted, text: text))
            }
            for child in element.children where property.matches(namespace: document.elements[child].namespace, local: document.elements[child].local) {
                let node = document.elements[child]
                guard node.children.isEmpty, node.attributes.allSatisfy({ $0.isNamespaceDeclaration }) else {
                    throw Unsupported(description: "\(node.qualifiedName) that is not a simple value")
                }
                if node.endTag == nil {
                    splices.append(Splice(range: (node.startTag.upperBound - 2)..<node.startTag.upperBound,
                                          text: Array(">".utf8) + escaped(value) + Array("</\(node.qualifiedName)>".utf8)))
                } else {
                    splices.append(Splice(range: node.content, text: escaped(value)))
                }
            }
        }
        guard splices.isEmpty else { return splices }
        guard let first = document.descriptions.first(where: { document.elements[$0].bindings.values.contains(property.namespace) })
                ?? document.descriptions.first else { throw Unsupported(description: "a packet without a description") }
        return try inserted(property, value: escaped(value), into: first, of: document)
    }

    /// Adds `property` holding `value` (its content) at the end of the description at `index`,
    /// declaring its namespace on the description when no prefix for it is in scope.
    private static func inserted(_ property: PropertyName, value: [UInt8], into index: Int, of document: XMPDocument) throws(Unsupported) -> [Splice] {
        let description = document.elements[index]
        var splices: [Splice] = []
        let prefix: String
        if let bound = description.bindings.filter({ $0.value == property.namespace && !$0.key.isEmpty }).keys.sorted().first {
            prefix = bound
        } else {
            var candidate = property.preferredPrefix
            var number = 1
            while description.bindings[candidate] != nil {
                candidate = property.preferredPrefix + String(number)
                number += 1
            }
            prefix = candidate
            let declaration = Array(" xmlns:\(prefix)=\"\(property.namespace)\"".utf8)
            let tagEnd = description.startTag.upperBound - (description.endTag == nil ? 2 : 1)
            splices.append(Splice(range: tagEnd..<tagEnd, text: declaration))
        }
        let element = Array("<\(prefix):\(property.name)>".utf8) + value + Array("</\(prefix):\(property.name)>".utf8)
        if let endTag = description.endTag {
            // Indented like the description's last child, when it has one on its own line.
            let indentation = lineIndentation(before: endTag.lowerBound, in: document.bytes)
            splices.append(Splice(range: endTag.lowerBound..<endTag.lowerBound, text: Array(" ".utf8) + element + Array("\n".utf8) + indentation))
        } else {
            let close = Array(">".utf8) + element + Array("</\(description.qualifiedName)>".utf8)
            splices.append(Splice(range: (description.startTag.upperBound - 2)..<description.startTag.upperBound, text: close))
        }
        return splices
    }

    /// The spaces and tabs at the start of the line that `position` is on, when only whitespace precedes it there.
    private static func lineIndentation(before position: Int, in bytes: [UInt8]) -> [UInt8] {
        var start = position
        while start > 0, bytes[start - 1] == 0x20 || bytes[start - 1] == 0x09 { start -= 1 }
        guard start == 0 || bytes[start - 1] == 0x0A else { return [] }
        return Array(bytes[start..<position])
    }

    /// A packet whose `rdf:RDF` holds no description gets one with the property.
    private static func newDescription(_ property: PropertyName, language: String, value: String, in document: XMPDocument) throws(Unsupported) -> [Splice] {
        guard let root = document.rdfRoot, let endTag = document.elements[root].endTag else { throw Unsupported(description: "an empty rdf:RDF") }
        let rdf = try rdfPrefix(document.elements[root])
        let text = Array("<\(rdf):Description \(rdf):about=\"\" xmlns:\(property.preferredPrefix)=\"\(property.namespace)\"><\(property.preferredPrefix):\(property.name)>".utf8)
            + languageAlternative(rdf: rdf, language: language, value: value) + Array("</\(property.preferredPrefix):\(property.name)></\(rdf):Description>".utf8)
        return [Splice(range: endTag.lowerBound..<endTag.lowerBound, text: text)]
    }

    /// Removes every top-level copy of `property` (attribute or element, with the whitespace before it).
    private static func removals(of property: PropertyName, in document: XMPDocument) -> [Splice] {
        var splices: [Splice] = []
        for description in document.descriptions {
            let element = document.elements[description]
            for attribute in element.attributes where property.matches(namespace: attribute.namespace, local: attribute.local) {
                splices.append(Splice(range: attribute.range, text: []))
            }
            for child in element.children where property.matches(namespace: document.elements[child].namespace, local: document.elements[child].local) {
                let whole = document.elements[child].whole
                var start = whole.lowerBound
                while start > 0, [0x20, 0x09, 0x0A, 0x0D].contains(document.bytes[start - 1]) { start -= 1 }
                // Only the whitespace since the previous tag; text (which a property element never has beside children) stays.
                if start > 0, document.bytes[start - 1] != UInt8(ascii: ">") { start = whole.lowerBound }
                splices.append(Splice(range: start..<whole.upperBound, text: []))
            }
        }
        return splices
    }

    /// A packet that grew takes the growth out of its padding (the whitespace before
    /// `<?xpacket end=`), as an in-place update by Adobe's toolkit does, when the padding is large enough.
    private static func keepingSize(_ edited: [UInt8], of original: [UInt8]) -> [UInt8] {
        let growth = edited.count - original.count
        guard growth > 0, let trailer = lastIndex(of: Array("<?xpacket end".utf8), in: edited) else { return edited }
        var start = trailer
        while start > 0, [0x20, 0x09, 0x0A, 0x0D].contains(edited[start - 1]) { start -= 1 }
        guard trailer - start > growth + 1 else { return edited }
        var result = edited
        result.removeSubrange(start..<(start + growth))
        return result
    }

    private static func lastIndex(of pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = bytes.count - pattern.count
        while index >= 0 {
            if bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index -= 1
        }
        return nil
    }
}
