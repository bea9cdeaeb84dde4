//! Module that defines the `call_fn` API of [`Engine`].
#![cfg(not(feature = "no_function"))]

use crate::eval::{Caches, GlobalRuntimeState};
use crate::types::dynamic::Variant;
use crate::{
    CallFnOptions, Dynamic, Engine, FnArgsVec, FuncArgs, Position, RhaiResult, RhaiResultOf, Scope,
    AST, ERR,
};
#[cfg(feature = "no_std")]
use std::prelude::v1::*;
use std::{any::type_name, mem};

impl Engine {
    /// Call a script function defined in an [`AST`] with multiple arguments.
    ///
    /// Not available under `no_function`.
    ///
    /// The [`AST`] is evaluated before calling the function.
    /// This allows a script to load the necessary modules.
    /// This is usually desired. If not, use [`call_fn_with_options`][Engine::call_fn_with_options] instead.
    ///
    /// # Example
    ///
    /// ```
    /// # fn main() -> Result<(), Box<rhai::EvalAltResult>> {
    /// use rhai::{Engine, Scope};
    ///
    /// let engine = Engine::new();
    ///
    /// let ast = engine.compile("
    ///     fn add(x, y) { len(x) + y + foo }
    ///     fn add1(x)   { len(x) + 1 + foo }
    ///     fn bar()     { foo/2 }
    /// ")?;
    ///
    /// let mut scope = Scope::new();
    /// scope.push("foo", 42_i64);
    ///
    /// // Call the script-defined function
    /// let result = engine.call_fn::<i64>(&mut scope, &ast, "add", ( "abc", 123_i64 ) )?;
    /// assert_eq!(result, 168);
    ///
    /// let result = engine.call_fn::<i64>(&mut scope, &ast, "add1", ( "abc", ) )?;
    /// //                                                           ^^^^^^^^^^ tuple of one
    /// assert_eq!(result, 46);
    ///
    /// let result = engine.call_fn::<i64>(&mut scope, &ast, "bar", () )?;
    /// assert_eq!(result, 21);
    /// # Ok(())
    /// # }
    /// ```
    #[inline(always)]
    pub fn call_fn<T: Variant + Clone>(
        &self,
        scope: &mut Scope,
        ast: &AST,
        fn_name: impl AsRef<str>,
        args: impl FuncArgs,
    ) -> RhaiResultOf<T> {
        self.call_fn_with_options(<_>::default(), scope, ast, fn_name, args)
    }
    /// Call a script function defined in an [`AST`] with multiple [`Dynamic`] arguments.
    /// Options are provided via the [`CallFnOptions`] type.
    ///
    /// If [`in_all_namespaces`](CallFnOptions::in_all_namespaces) is specified, the function will
    /// be searched in all namespaces instead, so registered native Rust functions etc. are also found.
    ///
    /// This is an advanced API.
    ///
    /// Not available under `no_function`.
    ///
    /// # Example
    ///
    /// ```
    /// # fn main() -> Result<(), Box<rhai::EvalAltResult>> {
    /// use rhai::{Engine, Scope, Dynamic, CallFnOptions};
    ///
    /// let engine = Engine::new();
    ///
    /// let ast = engine.compile("
    ///     fn action(x) { this += x; }         // function using 'this' pointer
    ///     fn decl(x)   { let hello = x; }     // declaring variables
    /// ")?;
    ///
    /// let mut scope = Scope::new();
    /// scope.push("foo", 42_i64);
    ///
    /// // Binding the 'this' pointer
    /// let mut value = 1_i64.into();
    /// let options = CallFnOptions::new().bind_this_ptr(&mut value);
    ///
    /// engine.call_fn_with_options::<()>(options, &mut scope, &ast, "action", ( 41_i64, ))?;
    /// assert_eq!(value.as_int().unwrap(), 42);
    ///
    /// // Do not rewind scope
    /// let options = CallFnOptions::default().rewind_scope(false);
    ///
    /// engine.call_fn_with_options::<()>(options, &mut scope, &ast, "decl", ( 42_i64, ))?;
    /// assert_eq!(scope.get_value::<i64>("hello").unwrap(), 42);
    /// # Ok(())
    /// # }
    /// ```
    #[inline(always)]
    pub fn call_fn_with_options<T: Variant + Clone>(
        &self,
        options: CallFnOptions,
        scope: &mut Scope,
        ast: &AST,
        fn_name: impl AsRef<str>,
        args: impl FuncArgs,
    ) -> RhaiResultOf<T> {
        let mut arg_values = FnArgsVec::new_const();
        args.parse(&mut arg_values);

        self._call_fn(
            options,
            scope,
            ast,
            fn_name.as_ref(),
            arg_values.as_mut(),
            &mut self.new_global_runtime_state(),
            &mut Caches::new(),
        )
        .and_then(|result| {
            result.try_cast_result().map_err(|r| {
                let result_type = self.map_type_name(r.type_name());
                let cast_type = match type_name::<T>() {
                    typ if typ.contains("::") => self.map_type_name(typ),
                    typ => typ,
                };
                ERR::ErrorMismatchOutputType(cast_type.into(), result_type.into(), Position::NONE)
                    .into()
            })
        })
    }
    /// Make a function call with multiple [`Dynamic`] arguments.
    ///
    /// # Arguments
    ///
    /// All the arguments are _consumed_, meaning that they're replaced by `()`. This is to avoid
    /// unnecessarily cloning the arguments.
    ///
    /// Do not use the arguments after this call. If they are needed afterwards, clone them _before_
    /// calling this function.
    #[inline(always)]
    pub(crate) fn _call_fn(
        &self,
        options: CallFnOptions,
        scope: &mut Scope,
        ast: &AST,
        name: &str,
        arg_values: &mut [Dynamic],
        global: &mut GlobalRuntimeState,
        caches: &mut Caches,
    ) -> RhaiResult {
        let statements = ast.statements();

        let orig_source = mem::replace(&mut global.source, ast.source_raw().cloned());

        let orig_lib_len = global.lib.len();
        global.lib.push(ast.shared_lib().clone());

        let orig_tag = options.tag.map(|v| mem::replace(&mut global.tag, v));

        let mut this_ptr = options.this_ptr;

        #[cfg(not(feature = "no_module"))]
        let orig_embedded_module_resolver =
            std::mem::replace(&mut global.embedded_module_resolver, ast.resolver.clone());

        let rewind_scope = options.rewind_scope;
        let in_all_namespaces = options.in_all_namespaces;

        defer! { global => move |g| {
            #[cfg(not(feature = "no_module"))]
            {
                g.embedded_module_resolver = orig_embedded_module_resolver;
            }
            if let Some(orig_tag) = orig_tag { g.tag = orig_tag; }
            g.lib.truncate(orig_lib_len);
            g.source = orig_source;
        }}

        let global_result = if options.eval_ast && !statements.is_empty() {
            defer! {
                scope if rewind_scope => rewind;
                let orig_scope_len = scope.len();
            }

            self.eval_global_statements(global, caches, scope, statements, true)
        } else {
            Ok(Dynamic::UNIT)
        };

        let result = global_result.and_then(|_| {
            let args = &mut arg_values.iter_mut().collect::<FnArgsVec<_>>();

            // Check for data race.
            #[cfg(not(feature = "no_closure"))]
            #[cfg(not(feature = "unchecked"))]
            crate::func::ensure_no_data_race(name, args, false)?;

            if let Some(fn_def) = ast.shared_lib().get_script_fn(name, args.len()) {
                self.call_script_fn(
                    global.into(),
                    caches,
                    scope,
                    this_ptr.as_deref_mut(),
                    None,
                    fn_def,
                    args,
                    rewind_scope,
                    Position::NONE,
                )
                .or_else(|err| match *err {
                    ERR::Exit(out, ..) => Ok(out),
                    _ => Err(err),
                })
            } else if !in_all_namespaces {
                Err(ERR::ErrorFunctionNotFound(name.into(), Position::NONE).into())
            } else {
                let has_this = this_ptr.as_deref_mut().map_or(false, |this_ptr| {
                    args.insert(0, this_ptr);
                    true
                });

                self.eval_fn_call_with_arguments::<Dynamic>(name, args, has_this, has_this)
            }
        });

        #[cfg(feature = "debugging")]
        if self.is_debugger_registered() {
            global.debugger_mut().status = crate::eval::DebuggerStatus::Terminate;
            let node = &crate::ast::Stmt::Noop(Position::NONE);
            self.dbg(global, caches, scope, this_ptr, node)?;
        }

        result.map_err(|err| match *err {
            ERR::ErrorInFunctionCall(fn_name, _, inner_err, _) if fn_name == name => inner_err,
            _ => err,
        })
    }
}

/// (Vendored patch, schedsim) The runtime state and function-resolution caches that
/// [`Engine::call_fn_with_state`] keeps from one call to the next, instead of the fresh
/// ones [`Engine::call_fn_with_options`] builds for every call.
///
/// A function resolution cached in it depends on the [`Engine`]'s registered functions
/// and on the script functions of the [`AST`] it was made with: use one `CallState` with
/// one [`Engine`] and one [`AST`] only.
pub struct CallState {
    global: GlobalRuntimeState,
    caches: Caches,
}

impl CallState {
    /// Operations the current call has counted.
    #[must_use]
    pub fn operations(&self) -> u64 {
        self.global.num_operations()
    }

    /// Empty state for calls of `engine`.
    #[must_use]
    pub fn new(engine: &Engine) -> Self {
        let mut caches = Caches::new();
        // The base cache, below the function body's block: a block pushes a cache only
        // when there is none, and pops what it pushed when it ends.
        caches.push_fn_resolution_cache();
        Self {
            global: engine.new_global_runtime_state(),
            caches,
        }
    }
}

impl Engine {
    /// (Vendored patch, schedsim) [`Engine::call_fn_with_options`] with the arguments
    /// given as values (consumed: replaced by `()`), no cast of the result, and the
    /// runtime state and function-resolution caches kept in `state` across calls. Each
    /// call starts as a fresh one would: no operations counted, at call level 0.
    pub fn call_fn_with_state(
        &self,
        state: &mut CallState,
        options: CallFnOptions,
        scope: &mut Scope,
        ast: &AST,
        name: &str,
        args: &mut [Dynamic],
    ) -> RhaiResult {
        let global = &mut state.global;
        #[cfg(not(atomic_ops_count))]
        {
            global.num_operations = 0;
        }
        #[cfg(atomic_ops_count)]
        {
            global.num_operations = std::sync::atomic::AtomicU64::new(0);
        }
        global.level = 0;
        global.scope_level = 0;
        global.always_search_scope = false;
        state.caches.rewind_fn_resolution_caches(1);
        self._call_fn(options, scope, ast, name, args, global, &mut state.caches)
    }
}

/// (Vendored patch, schedsim) The pieces of Rhai's evaluator that a caller compiling an
/// [`AST`] function into its own tree needs in order to behave exactly as Rhai does:
/// entering and leaving a call of a script function with a kept [`CallState`],
/// counting an operation, and handing one expression, statement or call back to Rhai
/// to evaluate with the same state and scope. Each is the code Rhai runs at that point
/// (`_call_fn`, `call_script_fn`, `track_operation`, `eval_expr`, `eval_stmt`,
/// `eval_fn_call_expr`'s operator paths, `exec_fn_call`, the `for` statement's iterator
/// lookup, `check_data_size`), made callable from outside.
#[cfg(feature = "internals")]
#[cfg(not(feature = "no_ast"))]
impl Engine {
    /// Starts a call of a script function of `ast` as [`Engine::call_fn_with_state`]
    /// would: a fresh call's counters, the AST's functions visible, one call level up
    /// (`call_script_fn`; its one operation is the caller's to count). Returns what
    /// [`Engine::leave_call`] restores.
    pub fn enter_call(&self, state: &mut CallState, ast: &AST) -> usize {
        let global = &mut state.global;
        #[cfg(not(atomic_ops_count))]
        {
            global.num_operations = 0;
        }
        #[cfg(atomic_ops_count)]
        {
            global.num_operations = std::sync::atomic::AtomicU64::new(0);
        }
        global.scope_level = 0;
        global.always_search_scope = false;
        state.caches.rewind_fn_resolution_caches(1);
        let orig_lib_len = global.lib.len();
        global.lib.push(ast.shared_lib().clone());
        global.level = 1;
        orig_lib_len
    }

    /// Ends what [`Engine::enter_call`] started.
    pub fn leave_call(&self, state: &mut CallState, orig_lib_len: usize) {
        state.global.lib.truncate(orig_lib_len);
        state.global.level = 0;
    }

    /// Counts one operation at `pos` (`track_operation`).
    #[inline(always)]
    pub fn count_operation(&self, state: &mut CallState, pos: Position) -> RhaiResultOf<()> {
        self.track_operation(&mut state.global, pos)
    }

    /// [`Engine::count_operation`] for an engine whose progress callback only records
    /// the count (in `seen`) and ends the call with `token` once more than `until`
    /// operations are counted: the same done here, without calling the callback.
    #[cfg(not(feature = "unchecked"))]
    #[cfg(not(atomic_ops_count))]
    #[inline(always)]
    pub fn count_operation_until(
        &self,
        state: &mut CallState,
        pos: Position,
        until: u64,
        token: &Dynamic,
        seen: &core::cell::Cell<u64>,
    ) -> RhaiResultOf<()> {
        state.global.num_operations += 1;
        let n = state.global.num_operations;
        if self.max_operations() > 0 && n > self.max_operations() {
            return Err(ERR::ErrorTooManyOperations(pos).into());
        }
        seen.set(n);
        if n > until {
            return Err(ERR::ErrorTerminated(token.clone(), pos).into());
        }
        Ok(())
    }

    /// [`Engine::count_operation_until`] where the count is atomic (`atomic_ops_count`,
    /// vendored patch 6): a load and a store, as the plain count's increment (one
    /// thread runs a call).
    #[cfg(not(feature = "unchecked"))]
    #[cfg(atomic_ops_count)]
    #[inline(always)]
    pub fn count_operation_until(
        &self,
        state: &mut CallState,
        pos: Position,
        until: u64,
        token: &Dynamic,
        seen: &core::cell::Cell<u64>,
    ) -> RhaiResultOf<()> {
        let ops = &state.global.num_operations;
        let n = ops.load(std::sync::atomic::Ordering::Relaxed) + 1;
        ops.store(n, std::sync::atomic::Ordering::Relaxed);
        if self.max_operations() > 0 && n > self.max_operations() {
            return Err(ERR::ErrorTooManyOperations(pos).into());
        }
        seen.set(n);
        if n > until {
            return Err(ERR::ErrorTerminated(token.clone(), pos).into());
        }
        Ok(())
    }

    /// `eval_expr` of one expression.
    pub fn eval_expr_with_state(
        &self,
        state: &mut CallState,
        scope: &mut Scope,
        expr: &crate::ast::Expr,
    ) -> RhaiResult {
        self.eval_expr(&mut state.global, &mut state.caches, scope, None, expr)
    }

    /// `eval_stmt` of one statement of a block.
    pub fn eval_stmt_with_state(
        &self,
        state: &mut CallState,
        scope: &mut Scope,
        stmt: &crate::ast::Stmt,
    ) -> RhaiResult {
        self.eval_stmt(&mut state.global, &mut state.caches, scope, None, stmt, true)
    }

    /// `eval_fn_call_expr`'s operator call (`call` has an operator token) once its
    /// operands are evaluated: the built-in function for the operands' types, else the
    /// function call.
    pub fn operator_with_state(
        &self,
        state: &mut CallState,
        call: &crate::ast::FnCallExpr,
        args: &mut [Dynamic],
        pos: Position,
    ) -> RhaiResult {
        let op_token = call.op_token.as_ref();
        if let [lhs, rhs] = args {
            if !lhs.is_variant() && !rhs.is_variant() {
                if let Some((func, need_context)) =
                    crate::func::get_builtin_binary_op_fn(op_token.unwrap(), lhs, rhs)
                {
                    let context = need_context
                        .then(|| (self, call.name.as_str(), None, &state.global, pos).into());
                    return func(context, &mut [lhs, rhs]).map_err(|err| err.fill_position(pos));
                }
            }
        }
        let args = &mut args.iter_mut().collect::<FnArgsVec<_>>();
        self.exec_fn_call(
            &mut state.global,
            &mut state.caches,
            None,
            &call.name,
            op_token,
            call.hashes,
            args,
            false,
            false,
            pos,
        )
        .map(|(v, ..)| v)
    }

    /// A namespace-qualified call (`make_qualified_function_call`) once its arguments
    /// are evaluated.
    #[cfg(not(feature = "no_module"))]
    pub fn qualified_with_state(
        &self,
        state: &mut CallState,
        call: &crate::ast::FnCallExpr,
        args: &mut [Dynamic],
        pos: Position,
    ) -> RhaiResult {
        let namespace = &call.namespace;
        let module = self.search_imports(&state.global, namespace).ok_or_else(|| {
            ERR::ErrorModuleNotFound(namespace.to_string(), namespace.position())
        })?;
        let path = namespace
            .path
            .iter()
            .map(|s| s.as_str())
            .collect::<crate::StaticVec<_>>();
        let args = &mut args.iter_mut().collect::<FnArgsVec<_>>();
        self.exec_qualified_fn_call_raw(
            &mut state.global,
            &mut state.caches,
            &module,
            &path,
            &call.name,
            None,
            args,
            call.hashes.native(),
            pos,
        )
    }

    /// `exec_fn_call` of a plain call once its arguments are evaluated.
    pub fn call_with_state(
        &self,
        state: &mut CallState,
        call: &crate::ast::FnCallExpr,
        args: &mut [Dynamic],
        pos: Position,
    ) -> RhaiResult {
        let args = &mut args.iter_mut().collect::<FnArgsVec<_>>();
        self.exec_fn_call(
            &mut state.global,
            &mut state.caches,
            None,
            &call.name,
            call.op_token.as_ref(),
            call.hashes,
            args,
            false,
            false,
            pos,
        )
        .map(|(v, ..)| v)
    }

    /// The iterator Rhai's `for` statement takes for a value of this type, if any.
    pub fn iterate_with_state(
        &self,
        state: &CallState,
        value: Dynamic,
    ) -> Option<Box<dyn Iterator<Item = RhaiResultOf<Dynamic>>>> {
        let iter_type = value.type_id();
        let iter_func = self
            .global_modules
            .iter()
            .find_map(|m| m.get_iter(iter_type));
        #[cfg(not(feature = "no_module"))]
        let iter_func = iter_func
            .or_else(|| state.global.get_iter(iter_type))
            .or_else(|| {
                self.global_sub_modules
                    .values()
                    .find_map(|m| m.get_qualified_iter(iter_type))
            });
        #[cfg(feature = "no_module")]
        let _ = state;
        iter_func.map(|f| f(value))
    }

    /// `check_data_size` of a native function's result.
    pub fn check_size_with_state(&self, value: Dynamic, pos: Position) -> RhaiResult {
        self.check_data_size(value, pos)
    }

    /// The name Rhai gives a type in its messages.
    pub fn type_mismatch(&self, expected: &str, got: &str, pos: Position) -> Box<crate::EvalAltResult> {
        ERR::ErrorMismatchDataType(self.map_type_name(expected).into(), got.into(), pos).into()
    }

    /// An error given the position `pos` if it has none (`fill_position`).
    pub fn error_at(&self, err: Box<crate::EvalAltResult>, pos: Position) -> Box<crate::EvalAltResult> {
        err.fill_position(pos)
    }
}
