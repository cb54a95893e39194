"""Who is to blame when a framework check fails: the torch build or the runtime below it.

framework fail + native twin passed            -> "framework"
framework fail + native twin failed or errored -> "runtime"
framework fail, check has no twin              -> "framework" (it tests the torch build itself)
framework fail, twin not run or skipped        -> None: the summary says what to run to know
"""

k_native_ok = ("pass", "info", "warn")
k_native_bad = ("fail", "error")


def find_native(native_results, twin_id, backend, device):
    """The native result for `twin_id`, preferring the same backend and device."""
    candidates = [r for r in native_results if r.get("id") == twin_id]
    for want in ((backend, device), (backend, None)):
        for r in candidates:
            if r.get("backend") == want[0] and (want[1] is None or r.get("device") == want[1]):
                return r
    return candidates[0] if candidates else None


def attribute(result, native_results):
    """Sets result["attribution"] and extends its summary; returns the result.

    `native_results` is None when no native results were given for this run.
    """
    if result["status"] != "fail":
        return result
    twin_id = result["facts"].get("native_twin")
    if twin_id is None:
        result["attribution"] = "framework"
        result["summary"] += " (attribution: framework — this tests the torch build itself)"
        return result
    native = find_native(native_results or [], twin_id, result["backend"], result["device"])
    if native is None:
        result["summary"] += (f" (attribution unknown: native twin {twin_id} was not run; "
                              "run the runtime and async layers too)")
        return result
    result["facts"]["native_twin_status"] = native["status"]
    if native["status"] in k_native_ok:
        result["attribution"] = "framework"
        result["summary"] += (f" (attribution: framework — native {twin_id} is "
                              f"{native['status']}, so the torch build is at fault, not the driver)")
    elif native["status"] in k_native_bad:
        result["attribution"] = "runtime"
        result["summary"] += (f" (attribution: runtime — native {twin_id} fails too, "
                              "so the driver/runtime is at fault, not torch)")
    else:
        result["summary"] += f" (attribution unknown: native {twin_id} was {native['status']})"
    return result


def native_device_names(native_results, twin_id):
    """Device names from the native devices check: one result whose facts.devices lists
    {name} objects, or one result per device with facts.name. None when not available."""
    found = [r for r in (native_results or []) if r.get("id") == twin_id
             and r.get("status") in k_native_ok]
    for r in found:
        devices = r.get("facts", {}).get("devices")
        if isinstance(devices, list) and all(isinstance(d, dict) and "name" in d for d in devices):
            return [d["name"] for d in devices]
    per_device = [r for r in found if isinstance(r.get("device"), int) and "name" in r.get("facts", {})]
    if per_device:
        return [r["facts"]["name"] for r in sorted(per_device, key=lambda r: r["device"])]
    return None
