package import Foundation
package import MemoraSync
internal import Testing

/// Docs/openapi.json, and a check of a response against it: the route and status must be documented,
/// and a JSON body must match the documented schema (types, required properties, enums, patterns,
/// ranges, items, `$ref`). `RawClient` runs it on every response the route tests receive, which is
/// what keeps the document true.
package struct OpenAPIDocument: Sendable {
    package static let shared: OpenAPIDocument = {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Docs/openapi.json").standardized.path
        guard let data = FileManager.default.contents(atPath: path), let root = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return OpenAPIDocument(root: .null)
        }
        return OpenAPIDocument(root: root)
    }()

    package let root: JSONValue

    private static func member(_ value: JSONValue?, _ name: String) -> JSONValue? {
        if case .object(let members)? = value { return members[name] }
        return nil
    }

    /// The problems of a response; empty when it conforms.
    package func problems(method: String, path: String, status: Int, body: Data) -> [String] {
        guard case .object(let paths)? = Self.member(root, "paths") else { return ["Docs/openapi.json is missing or has no paths"] }
        guard let template = paths.keys.first(where: { Self.matches($0, path) }) else {
            // An unknown route: a 404 in the one error shape.
            guard status == 404, let value = try? JSONDecoder().decode(JSONValue.self, from: body) else { return ["\(path) is not documented"] }
            var problems: [String] = []
            check(value, against: .object(["$ref": .string("#/components/schemas/ErrorBody")]), at: "\(path) 404: body", problems: &problems)
            return problems
        }
        guard let operation = Self.member(paths[template], method.lowercased()) else { return ["\(method) \(template) is not documented"] }
        guard let response = Self.member(Self.member(operation, "responses"), String(status)) else {
            return ["\(method) \(template) does not document the status \(status)"]
        }
        guard let schema = Self.member(Self.member(Self.member(response, "content"), "application/json"), "schema") else { return [] }
        guard method != "HEAD" else { return [] }
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else { return ["\(method) \(template) \(status): the body is not JSON"] }
        var problems: [String] = []
        check(value, against: schema, at: "\(method) \(template) \(status): body", problems: &problems)
        return problems
    }

    private static func matches(_ template: String, _ path: String) -> Bool {
        let a = template.split(separator: "/"), b = path.split(separator: "/")
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }

    private func resolve(_ schema: JSONValue) -> JSONValue {
        guard case .string(let reference)? = Self.member(schema, "$ref") else { return schema }
        var node: JSONValue? = root
        for part in reference.dropFirst(2).split(separator: "/") { node = Self.member(node, String(part)) }
        return node ?? .null
    }

    private func check(_ value: JSONValue, against raw: JSONValue, at path: String, problems: inout [String]) {
        let schema = resolve(raw)
        var types: [String] = []
        switch Self.member(schema, "type") {
        case .string(let type)?: types = [type]
        case .array(let list)?: types = list.compactMap { if case .string(let type) = $0 { type } else { nil } }
        default: break
        }
        let actual: String
        switch value {
        case .null: actual = "null"
        case .bool: actual = "boolean"
        case .integer: actual = "integer"
        case .number: actual = "number"
        case .string: actual = "string"
        case .array: actual = "array"
        case .object: actual = "object"
        }
        if !types.isEmpty && !types.contains(actual) && !(actual == "integer" && types.contains("number")) {
            problems.append("\(path): \(actual), documented as \(types.joined(separator: " or "))")
            return
        }
        if case .array(let allowed)? = Self.member(schema, "enum"), !allowed.contains(value) {
            problems.append("\(path): \(value.jsonText) is not one of the documented values")
        }
        switch value {
        case .string(let text):
            if case .string(let pattern)? = Self.member(schema, "pattern"), text.range(of: pattern, options: .regularExpression) == nil {
                problems.append("\(path): does not match \(pattern)")
            }
        case .integer(let number):
            if case .integer(let minimum)? = Self.member(schema, "minimum"), number < minimum { problems.append("\(path): below \(minimum)") }
            if case .integer(let maximum)? = Self.member(schema, "maximum"), number > maximum { problems.append("\(path): above \(maximum)") }
        case .array(let items):
            if let itemSchema = Self.member(schema, "items") {
                for (index, item) in items.enumerated() { check(item, against: itemSchema, at: "\(path)[\(index)]", problems: &problems) }
            }
        case .object(let members):
            if case .array(let required)? = Self.member(schema, "required") {
                for case .string(let name) in required where members[name] == nil { problems.append("\(path).\(name): required but missing") }
            }
            let properties: [String: JSONValue]
            if case .object(let documented)? = Self.member(schema, "properties") { properties = documented } else { properties = [:] }
            for (name, member) in members {
                if let property = properties[name] {
                    check(member, against: property, at: "\(path).\(name)", problems: &problems)
                } else if Self.member(schema, "additionalProperties") != .bool(true) {
                    problems.append("\(path).\(name): not documented")
                }
            }
        default: break
        }
    }
}
